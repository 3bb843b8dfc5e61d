import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { terminalUser } from "./terminal-user.js";

const start = { scenario: { persona: null, instructions: "x" }, tools: [], seed: 0, history: [] };

describe("terminalUser", () => {
  it("turns typed lines into messages and tool calls; arguments that are not a JSON object are asked again", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (chunk: Buffer) => (shown += chunk.toString()));
    input.end(
      'hello\n/tool check_status_bar [1]\n/tool check_status_bar 5\n/tool toggle_data {"on": true}\n/stop\n',
    );
    const session = await terminalUser(input, output).start({ ...start, task: {} as never });
    expect(await session.respond([])).toMatchObject({ role: "user", content: "hello" });
    expect(await session.respond([])).toMatchObject({
      content: null,
      tool_calls: [{ id: "human_call_0", name: "toggle_data", arguments: { on: true }, requestor: "user" }],
    });
    expect(shown.match(/arguments must be a JSON object/g)).toHaveLength(2);
    expect(await session.respond([])).toMatchObject({ content: "###STOP###" });
  });
});
