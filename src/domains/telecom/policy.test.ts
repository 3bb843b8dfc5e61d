import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tau2DataDir, tau2Dir } from "../../testing/tau2-fixtures.js";
import { telecomDomain, telecomWorkflowDomain } from "./index.js";

const read = (relative: string) => readFileSync(path.join(tau2DataDir(), "telecom", relative), "utf8");
const expected = (file: string) => readFileSync(path.join(tau2Dir(), "fixtures/prompts", file), "utf8");

describe("telecom policies", () => {
  it.each([
    ["telecom", telecomDomain],
    ["telecom-workflow", telecomWorkflowDomain],
  ] as const)("%s assembles the reference policies byte for byte", (name, domain) => {
    const { policy, soloPolicy } = domain.data;
    if (typeof policy !== "function" || typeof soloPolicy !== "function")
      throw new Error("expected builders");
    expect(policy(read)).toBe(expected(`policy_${name}.md`));
    expect(soloPolicy(read)).toBe(expected(`policy_solo_${name}.md`));
  });
});
