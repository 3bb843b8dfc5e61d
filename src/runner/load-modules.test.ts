import path from "node:path";
import { describe, expect, it } from "vitest";
import { importAgentModules } from "./load-modules.js";

describe("importAgentModules", () => {
  it("keys each agent by its module:<path> spec, relative or absolute as given", async () => {
    const absolute = `module:${path.resolve("examples/custom-agent.ts")}`;
    const agents = await importAgentModules(["module:./examples/custom-agent.ts", absolute]);
    expect([...agents.keys()]).toEqual(["module:./examples/custom-agent.ts", absolute]);
    expect(typeof agents.get(absolute)?.start).toBe("function");
  });

  it("refuses a spec that is not a module", async () => {
    await expect(importAgentModules(["gpt-4.1"])).rejects.toThrow("gpt-4.1 is not a module:<path> agent");
  });
});
