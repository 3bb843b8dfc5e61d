import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/create-agent.js";
import type { Task } from "../../src/core/task.js";
import { createLanguageModel } from "../../src/llm/index.js";
import {
  mockReply,
  startMockLlmServer,
  type MockLlmReply,
  type MockLlmRequest,
  type MockLlmServer,
} from "../../src/testing/index.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import {
  callMcpTool,
  hostileHttpAgent,
  scriptedCustomer,
  type HostileServer,
} from "../helpers/hostile-agents.js";
import { converse, domainData } from "../helpers/remote-agents.js";
import { runCli } from "../helpers/run-cli.js";

// A provider that echoes the API key inside an ordinary 200 answer: before, the key was stored verbatim
// in the results, the store and exports (75 times in one run) while the same run's spans were clean.

const KEY = "plainsecretvalue0123456789XYZ";
const OTHER_KEY = "sk-ant-other-provider-key-0987654321";
const PASSWORD = "proxy-password-5550123";

let script: (request: MockLlmRequest) => MockLlmReply = () => mockReply.text("hello");
let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer({ script: (request) => script(request) });
});
afterAll(() => server.close());

const bearer = (request: MockLlmRequest) => request.headers.authorization ?? "";
const basicPassword = (request: MockLlmRequest) =>
  Buffer.from(bearer(request).replace(/^Basic /, ""), "base64")
    .toString("utf8")
    .split(":")[1] ?? "";

async function replyOf(
  reply: (request: MockLlmRequest) => MockLlmReply,
  options: { env?: Record<string, string>; baseUrl?: string } = {},
) {
  script = reply;
  const model = createLanguageModel("openai-compatible:echo", {
    baseUrl: options.baseUrl ?? server.baseUrl,
    env: options.env ?? { OPENAI_COMPATIBLE_API_KEY: KEY },
    retry: { maxAttempts: 1 },
  });
  return model.generate({ system: "s", messages: [{ role: "user", content: "hi" }] });
}

describe("a provider echoing a configured secret in a 200 reply", () => {
  const cases: Array<[string, (request: MockLlmRequest) => MockLlmReply]> = [
    ["the Authorization header in the text", (r) => mockReply.text(`Your key is ${bearer(r)}`)],
    ["the key three times in the text", () => mockReply.text(`${KEY} ${KEY}-${KEY}`)],
    ["the key inside a word", () => mockReply.text(`abc${KEY}def`)],
    ["the key as a tool argument", () => mockReply.toolCall("get_user_details", { user_id: KEY })],
    ["the key nested in arguments", () => mockReply.toolCall("t", { a: { b: [1, { c: `x ${KEY}` }] } })],
    ["the key as an argument's name", () => mockReply.toolCall("t", { [KEY]: 1, n: 2.0 })],
    [
      "the key spelled with JSON escapes in the argument text",
      () => mockReply.toolCall("t", `{"user_id": "\\u0070${KEY.slice(1)}"}`),
    ],
    [
      "the key in text and tool call together",
      () => mockReply.toolCall("t", { k: KEY }, { text: `key ${KEY}` }),
    ],
  ];
  it.each(cases)("%s: replaced by [redacted] before anyone sees the reply", async (_name, reply) => {
    const response = await replyOf(reply);
    const seen = JSON.stringify(response) + response.toolCalls.map((c) => c.argumentsText).join("");
    expect(seen).not.toContain(KEY);
    expect(seen).not.toContain(KEY.slice(1)); // nor the escaped spelling's tail
    expect(seen).toContain("[redacted]");
    for (const call of response.toolCalls) expect(JSON.parse(call.argumentsText)).toEqual(call.arguments);
  });

  it("another provider's key from the environment is taken out too", async () => {
    const response = await replyOf(() => mockReply.text(`I found ${OTHER_KEY} in my logs`), {
      env: { OPENAI_COMPATIBLE_API_KEY: KEY, ANTHROPIC_API_KEY: OTHER_KEY },
    });
    expect(response.text).toBe("I found [redacted] in my logs");
  });

  it("a base URL's password echoed back is taken out", async () => {
    const response = await replyOf((r) => mockReply.text(`password=${basicPassword(r)}`), {
      baseUrl: server.baseUrl.replace("http://", `http://team:${PASSWORD}@`),
      env: {},
    });
    expect(response.text).toBe("password=[redacted]");
  });

  const untouched: Array<[string, string, Record<string, string>]> = [
    [
      "a look-alike key that is not configured",
      "Use sk-notmykey1234567890 here",
      { OPENAI_COMPATIBLE_API_KEY: KEY },
    ],
    ["Bearer followed by a long word", "Bearer certificates are paper", { OPENAI_COMPATIBLE_API_KEY: KEY }],
    ["a short placeholder key's value", "The bin is EMPTY now", { OPENAI_COMPATIBLE_API_KEY: "EMPTY" }],
  ];
  it.each(untouched)("%s: the graded text stays as the model wrote it", async (_name, text, env) => {
    const response = await replyOf(() => mockReply.text(text), { env });
    expect(response.text).toBe(text);
  });
});

describe("a remote agent echoing its tokens into a tool call", () => {
  const task: Task = domainData("mock").tasks.find((t) => t.id === "create_task_1")!;
  const servers: HostileServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it("the MCP token and PASSK_REMOTE_AGENT_TOKEN never reach the trajectory", async () => {
    let mcpToken = "";
    const agentSide = await hostileHttpAgent(async ({ start }) => {
      mcpToken = start.mcp.token;
      await callMcpTool(start.mcp, "create_task", {
        user_id: "user_1",
        title: `${start.mcp.token} agent-token-abcdef0123456789`,
      });
      return "Done.";
    });
    servers.push(agentSide);
    const agent = createAgent(`http:${agentSide.url}`, {
      env: { PASSK_REMOTE_AGENT_TOKEN: "agent-token-abcdef0123456789" },
      retry: { maxAttempts: 1 },
    });
    const { run } = await converse({ domain: "mock", task, agent, user: scriptedCustomer(["Hi"]) });
    const text = JSON.stringify(run);
    expect(mcpToken).not.toBe("");
    expect(text).not.toContain(mcpToken);
    expect(text).not.toContain("agent-token-abcdef0123456789");
    expect(text).toContain("[redacted] [redacted]");
  });
});

describe("passk run with a provider that echoes the key", () => {
  it("no results file, store, export or output holds it", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "passk-echoed-key-"));
    const store = path.join(dir, "passk.db");
    const saveTo = path.join(dir, "r.json");
    script = (request) =>
      request.messages.length > 3
        ? mockReply.text(`Your key is ${bearer(request)} ###STOP###`)
        : mockReply.toolCall("get_users", { user_id: KEY }, { text: `echo ${KEY}` });
    const env = { PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: KEY };
    const run = await runCli(
      [
        "run",
        "--domain",
        "mock",
        "--num-tasks",
        "2",
        "--agent-llm",
        "openai-compatible:echo",
        "--agent-llm-base-url",
        server.baseUrl,
        "--user-llm",
        "openai-compatible:echo-user",
        "--user-llm-base-url",
        server.baseUrl,
        "--protocol",
        "passk",
        "--store",
        store,
        "--save-to",
        saveTo,
        "--cache",
        path.join(dir, "cache.db"),
      ],
      { env },
    );
    expect(run.code === 0 || run.code === 3, run.stderr).toBe(true);
    const id = /run (\d{8}-\d{6}-[0-9a-f]{4})/.exec(run.stderr)![1]!;
    const exported = await runCli(["export", id, "--store", store], { env });
    const results = readFileSync(saveTo, "utf8");
    expect(results).toContain("[redacted]");
    for (const [where, text] of [
      ["output", run.stdout + run.stderr],
      ["results file", results],
      ...readdirSync(dir)
        .filter((name) => name.includes(".db"))
        .map((name) => [name, readFileSync(path.join(dir, name)).toString("latin1")] as const),
      ["export", exported.stdout],
    ] as const)
      expect(text, where).not.toContain(KEY);
  });
});
