import { UnknownNameError } from "../core/errors.js";
import type { AnyDomain } from "../env/domain.js";
import { airlineDomain } from "./airline/index.js";
import { bankingKnowledgeDomain } from "./banking/index.js";
import { mockDomain } from "./mock/index.js";
import { retailDomain } from "./retail/index.js";
import { telecomDomain, telecomWorkflowDomain } from "./telecom/index.js";

/** The built-in domains, by name. The CLI and server build on this map; nothing reads it implicitly. */
export const builtinDomains: ReadonlyMap<string, AnyDomain> = new Map(
  (
    [
      mockDomain,
      airlineDomain,
      retailDomain,
      telecomDomain,
      telecomWorkflowDomain,
      bankingKnowledgeDomain,
    ] as AnyDomain[]
  ).map((d) => [d.name, d]),
);

export function getDomain(name: string, domains: ReadonlyMap<string, AnyDomain> = builtinDomains): AnyDomain {
  const domain = domains.get(name);
  if (!domain)
    throw new UnknownNameError("domain", name, [...domains.keys()], "Pass --domain with one of these.");
  return domain;
}
