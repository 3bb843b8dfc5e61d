import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../core/errors.js";
import { domainTools } from "./domain-tools.js";

const folder = mkdtempSync(path.join(tmpdir(), "passk-domain-tools-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("domainTools", () => {
  it("gives each tool of the side with what a model is sent for it", () => {
    const notes: string[] = [];
    const { tools, specs } = domainTools({ domain: "mock" }, { onNote: (text) => notes.push(text) });
    expect(specs.map((s) => s.name)).toEqual(tools.map((t) => t.name));
    expect(specs.find((s) => s.name === "create_task")?.parameters).toMatchObject({
      required: ["user_id", "title"],
    });
    expect(notes).toEqual([]);
  });

  it("takes a tool spec file's texts and warns about the tools it leaves alone and those it names wrongly", () => {
    const file = path.join(folder, "spec.json");
    const tool = (name: string, description: string) => ({
      type: "function",
      function: { name, description, parameters: { type: "object", properties: {} } },
    });
    writeFileSync(
      file,
      JSON.stringify({ agent_tools: [tool("create_task", "Make a task."), tool("fly_away", "Not here.")] }),
    );
    const notes: Array<[string, string]> = [];
    const { specs } = domainTools(
      { domain: "mock", toolSpec: file },
      { onNote: (text, kind) => notes.push([kind, text]) },
    );
    expect(specs.find((s) => s.name === "create_task")?.description).toBe("Make a task.");
    expect(notes.map(([kind]) => kind)).toEqual(["warning", "warning"]);
    expect(notes[0]![1]).toMatch(/has no entry for .*update_task_status/);
    expect(notes[1]![1]).toContain("names tools that domain mock does not have: fly_away");
  });

  it("refuses a side the domain has no tools for", () => {
    expect(() => domainTools({ domain: "airline", side: "user" })).toThrow(ConfigError);
    expect(() => domainTools({ domain: "airline", side: "user" })).toThrow(/has no user tools/);
  });
});
