import { describe, expect, it } from "vitest";
import { modelReport, providerReports } from "./provider-report.js";
import { createDefaultProviderRegistry } from "./provider-registry.js";

describe("providerReports", () => {
  it("lists every default provider, saying whether each variable is set and never its value", () => {
    const reports = providerReports({ OPENAI_API_KEY: "sk-secret", ANTHROPIC_API_KEY: " " });
    expect(reports.map((r) => r.provider)).toEqual(createDefaultProviderRegistry().ids);
    const openai = reports.find((r) => r.provider === "openai")!;
    expect(openai).toMatchObject({ installed: true, compatible: true, install: null, optional: false });
    expect(openai.env).toContainEqual(expect.objectContaining({ name: "OPENAI_API_KEY", set: true }));
    const anthropic = reports.find((r) => r.provider === "anthropic")!;
    // A blank variable is not set.
    expect(anthropic.env).toContainEqual(expect.objectContaining({ name: "ANTHROPIC_API_KEY", set: false }));
    expect(JSON.stringify(reports)).not.toContain("sk-secret");
  });
});

describe("modelReport", () => {
  it("prices a model from the table, and an unknown one as null", () => {
    const known = modelReport("google:gemini-2.5-flash", { env: {} });
    expect(known.model).toBe("google:gemini-2.5-flash");
    expect(known.provider.provider).toBe("google");
    expect(known.pricing).toMatchObject({ source: "table" });
    const local = modelReport("openai-compatible:my-local-model", {
      env: { OPENAI_COMPATIBLE_BASE_URL: "http://localhost:11434/v1" },
    });
    expect(local.pricing).toBeNull();
  });

  it("takes a price override before the table", () => {
    const report = modelReport("openai-compatible:local", {
      env: {},
      baseUrl: "http://localhost:8000/v1",
      overrides: { models: { "openai-compatible:local": { input_mtok: 1, output_mtok: 2 } } },
    });
    expect(report.pricing).toMatchObject({ source: "override", inputMtok: 1, outputMtok: 2 });
  });

  it("refuses a model without a provider", () => {
    expect(() => modelReport("gemini-2.5-flash", { env: {} })).toThrow(/has no provider/);
  });
});
