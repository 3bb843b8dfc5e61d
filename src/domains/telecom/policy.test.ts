import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { referenceTextMatches, tau2DataDir } from "../../testing/tau2-fixtures.js";
import { telecomDomain, telecomWorkflowDomain } from "./index.js";

const read = (relative: string) => readFileSync(path.join(tau2DataDir(), "telecom", relative), "utf8");
const expectReference = (actual: string, name: string) => {
  const file = `fixtures/prompts/${name}`;
  const check = referenceTextMatches(actual, file, (f) => f.text(file));
  expect(check.equal, check.message).toBe(true);
};

describe("telecom policies", () => {
  it.each([
    ["telecom", telecomDomain],
    ["telecom-workflow", telecomWorkflowDomain],
  ] as const)("%s assembles the reference policies byte for byte", (name, domain) => {
    const { policy, soloPolicy } = domain.data;
    if (typeof policy !== "function" || typeof soloPolicy !== "function")
      throw new Error("expected builders");
    expectReference(policy(read), `policy_${name}.md`);
    expectReference(soloPolicy(read), `policy_solo_${name}.md`);
  });
});
