import path from "node:path";
import { describe, expect, it } from "vitest";
import { builtinDomains } from "../domains/registry.js";
import { tau2DataDir } from "../testing/tau2-fixtures.js";
import { readDomainTaskComponents } from "./task-components.js";

describe("readDomainTaskComponents", () => {
  const lookup = { env: { PASSK_DATA_DIR: tau2DataDir() }, domains: builtinDomains };
  const telecomFile = path.join(tau2DataDir(), "telecom", "task_components.json");

  it("reads a domain's components from its folder of the data directory", () => {
    const { file, components } = readDomainTaskComponents({ domain: "telecom" }, lookup);
    expect(file).toBe(telecomFile);
    expect(components.managers.every((m) => m.domain === "telecom")).toBe(true);
  });

  it("refuses a file of another domain, a missing file, and no source at all", () => {
    expect(() => readDomainTaskComponents({ domain: "airline", components: telecomFile }, lookup)).toThrow(
      `${telecomFile} composes tasks of domain "telecom" (manager mobile_data_issue), not --domain airline`,
    );
    expect(() => readDomainTaskComponents({ domain: "airline" }, lookup)).toThrow(
      /domain airline has no task_components\.json at .*airline/,
    );
    expect(() => readDomainTaskComponents({}, lookup)).toThrow(/give --domain NAME/);
  });
});
