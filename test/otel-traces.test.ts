import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Message, ParticipantMessage } from "../src/core/message.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { parseResults } from "../src/formats/tau2/results.js";
import {
  goldScript,
  mockReply,
  startMockLlmServer,
  type MockLlmReply,
  type MockLlmRequest,
  type MockLlmServer,
} from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { startRedisServer } from "./helpers/redis-server.js";
import { REPO_ROOT } from "./helpers/run-cli.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";

// `passk run --otel` against a local OTLP/HTTP receiver: every conversation arrives as one trace — the
// conversation span at its root, the model calls and tool calls as its children in the order they
// happened, with the GenAI conventions' attributes, the usage and cost passk recorded, the tools'
// arguments and results, and the grade — and neither the API key nor the exporter's bearer token
// appears anywhere in what was sent. A collector that is down costs one warning and nothing else.

const API_KEY = "sk-test-otel-0123456789abcdef";
const OTLP_TOKEN = "otlp-secret-token-0123456789";
const dir = mkdtempSync(path.join(tmpdir(), "passk-otel-"));
const ENV = { PASSK_DATA_DIR: tau2DataDir(), OPENAI_API_KEY: API_KEY };
/** gpt-4.1, USD per million tokens, from OpenAI's price list. */
const GPT_41 = { input: 2, cacheRead: 0.5, output: 8 };
const TASK = "8"; // get_user_details, get_reservation_details, search_direct_flight, book_reservation

interface ReceivedExport {
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A bare OTLP/HTTP receiver: keeps every body POSTed to /v1/traces and accepts it. */
async function startReceiver(): Promise<{ url: string; exports: ReceivedExport[]; server: Server }> {
  const exports: ReceivedExport[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      exports.push({ headers: request.headers, text: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports, server };
}

type AttributeValue = string | number | boolean | AttributeValue[];
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  start: bigint;
  end: bigint;
  status: { code?: number; message?: string };
  attributes: Record<string, AttributeValue>;
}

/** OTLP's JSON `AnyValue`. */
interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value: AnyValue;
}

function attributeValue(value: AnyValue): AttributeValue {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return (value.arrayValue?.values ?? []).map(attributeValue);
}

function attributeMap(list: KeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, attributeValue(value)]));
}

interface TracesBody {
  resourceSpans: Array<{
    resource: { attributes: KeyValue[] };
    scopeSpans: Array<{
      scope: { name: string };
      spans: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        startTimeUnixNano: string | number;
        endTimeUnixNano: string | number;
        status?: { code?: number; message?: string };
        attributes?: KeyValue[];
      }>;
    }>;
  }>;
}

function receivedSpans(exports: readonly ReceivedExport[]) {
  const spans: ReceivedSpan[] = [];
  const resources: Array<Record<string, AttributeValue>> = [];
  for (const received of exports) {
    const body = JSON.parse(received.text) as TracesBody;
    for (const resourceSpans of body.resourceSpans) {
      resources.push(attributeMap(resourceSpans.resource.attributes));
      for (const scopeSpans of resourceSpans.scopeSpans)
        for (const span of scopeSpans.spans)
          spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
            name: span.name,
            start: BigInt(span.startTimeUnixNano),
            end: BigInt(span.endTimeUnixNano),
            status: span.status ?? {},
            attributes: attributeMap(span.attributes),
          });
    }
  }
  return { spans, resources };
}

const byStart = (a: ReceivedSpan, b: ReceivedSpan) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0);

/**
 * The gold conversation of the task on every trial (a fresh script after each customer stop), with
 * scripted token usage per call; the very first call is refused once with a 429 whose body echoes
 * the API key, as some proxies do.
 */
function tracedScript(data: DomainData) {
  let gold = goldScript(data.task(TASK));
  return (request: MockLlmRequest): MockLlmReply => {
    if (request.index === 0)
      return mockReply.error(429, { retryAfterSeconds: 0, message: `rate limited for key ${API_KEY}` });
    const reply = gold(request);
    if (reply.kind !== "message") return reply;
    if (reply.text?.includes("###STOP###")) gold = goldScript(data.task(TASK));
    const k = request.index;
    return {
      ...reply,
      usage: { promptTokens: 1000 + 37 * k, completionTokens: 10 + k, cachedTokens: 128 * (k % 3) },
    };
  };
}

const servers: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function mockModel(data: DomainData): Promise<MockLlmServer> {
  const server = await startMockLlmServer({ script: tracedScript(data), promptCache: false });
  servers.push(server);
  return server;
}

function runFlags(name: string, baseUrl: string): string[] {
  return [
    "run",
    "--domain",
    "airline",
    "--task-ids",
    TASK,
    "--agent-llm",
    "openai:gpt-4.1",
    "--agent-llm-base-url",
    baseUrl,
    "--user-llm",
    "openai:gpt-4.1",
    "--user-llm-base-url",
    baseUrl,
    "--max-concurrency",
    "1",
    "--store",
    path.join(dir, `${name}.db`),
    "--save-to",
    path.join(dir, `${name}.json`),
    "--progress",
    "none",
  ];
}

function readSimulations(name: string) {
  const file = path.join(dir, `${name}.json`);
  return parseResults(readFileSync(file, "utf8"), file).results;
}

/** What each message of a trajectory should have been traced as: a model call or a tool call. */
function expectedChildren(messages: readonly Message[]): string[] {
  const toolNames = new Map<string, string>();
  const names: string[] = [];
  for (const message of messages) {
    if ((message.role === "assistant" || message.role === "user") && message.usage) {
      names.push("chat gpt-4.1");
      for (const call of message.tool_calls ?? []) toolNames.set(call.id, call.name);
    } else if (message.role === "tool") names.push(`execute_tool ${toolNames.get(message.id)}`);
  }
  return names;
}

/**
 * The traces a run of TASK (gold, 2 trials, the first call refused once with a 429) sent: one per
 * conversation, the conversation at the root, its model and tool calls as children in order, with GenAI
 * attributes, usage, cost and the grade, and no secret.
 */
function expectTracesOfRun(exports: readonly ReceivedExport[], results: ReturnType<typeof readSimulations>) {
  // JSON over HTTP, with the headers of OTEL_EXPORTER_OTLP_HEADERS; no secret anywhere in the bodies.
  expect(exports.length).toBeGreaterThan(0);
  for (const received of exports) {
    expect(received.headers["content-type"]).toBe("application/json");
    expect(received.headers.authorization).toBe(`Bearer ${OTLP_TOKEN}`);
    expect(received.text).not.toContain(API_KEY);
    expect(received.text).not.toContain(OTLP_TOKEN);
    expect(received.text).not.toMatch(/Bearer\s+[A-Za-z0-9]/);
    expect(received.text).not.toMatch(/sk-[A-Za-z0-9_-]{8,}/);
  }

  const { spans, resources } = receivedSpans(exports);
  expect(resources.every((r) => r["service.name"] === "passk")).toBe(true);
  const traceIds = [...new Set(spans.map((s) => s.traceId))];
  expect(traceIds.length).toBe(2);
  const runId = (results.info as { passk?: { run_id?: string } }).passk?.run_id;
  expect(runId).toBeTruthy();

  for (const traceId of traceIds) {
    const spansOfTrace = spans.filter((s) => s.traceId === traceId);
    const roots = spansOfTrace.filter((s) => s.parentSpanId === undefined);
    expect(roots.length).toBe(1);
    const root = roots[0]!;
    expect(root.name).toBe("conversation airline");
    const simulation = results.simulations.find((s) => s.trial === root.attributes["passk.trial"])!;
    expect(simulation).toBeDefined();

    // The grade and where the conversation belongs.
    expect(root.attributes).toMatchObject({
      "passk.run.id": runId!,
      "session.id": runId!,
      "passk.domain": "airline",
      "passk.task.id": TASK,
      "passk.seed": simulation.seed!,
      "passk.simulation.id": simulation.id,
      "gen_ai.conversation.id": simulation.id,
      "passk.agent.llm": "openai:gpt-4.1",
      "passk.user.llm": "openai:gpt-4.1",
      "passk.protocol": "tau2",
      "passk.reward": 1,
      "passk.success": true,
      "passk.termination_reason": "user_stop",
      "passk.checks.db_match": true,
      "passk.checks.actions.passed": 4,
      "passk.checks.actions.total": 4,
    });
    expect(JSON.parse(String(root.attributes["passk.reward_breakdown"]))).toEqual(
      simulation.reward_info!.reward_breakdown,
    );
    expect(root.attributes["passk.cost_usd"]).toBeCloseTo(simulation.agent_cost! + simulation.user_cost!, 12);

    // Children: exactly the trajectory's model calls and tool calls, in the order they happened,
    // inside the conversation's time.
    const children = spansOfTrace.filter((s) => s.parentSpanId === root.spanId).sort(byStart);
    expect(children.map((s) => s.name)).toEqual(expectedChildren(simulation.messages));
    for (const child of children) {
      expect(child.start >= root.start && child.end <= root.end).toBe(true);
      expect(child.end >= child.start).toBe(true);
    }

    // Model calls: the GenAI attributes, the usage passk recorded on each message, and its cost
    // worked out by hand from the price list.
    const calls = simulation.messages.filter(
      (m): m is ParticipantMessage => (m.role === "assistant" || m.role === "user") && Boolean(m.usage),
    );
    const chats = children.filter((s) => s.name.startsWith("chat "));
    expect(chats.length).toBe(calls.length);
    for (const [i, span] of chats.entries()) {
      const message = calls[i]!;
      const usage = message.usage as {
        prompt_tokens: number;
        completion_tokens: number;
        cache_read_tokens?: number;
      };
      const cached = usage.cache_read_tokens ?? 0;
      expect(span.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-4.1",
        "gen_ai.request.temperature": 0,
        "gen_ai.usage.input_tokens": usage.prompt_tokens,
        "gen_ai.usage.output_tokens": usage.completion_tokens,
        "passk.role": message.role === "assistant" ? "agent" : "user",
      });
      if (cached > 0) expect(span.attributes["gen_ai.usage.cache_read.input_tokens"]).toBe(cached);
      const cost =
        ((usage.prompt_tokens - cached) * GPT_41.input +
          cached * GPT_41.cacheRead +
          usage.completion_tokens * GPT_41.output) /
        1e6;
      expect(span.attributes["passk.cost_usd"]).toBeCloseTo(cost, 12);
      expect(message.cost).toBeCloseTo(cost, 12);
      // The reply the model gave, in the conventions' message shape.
      const output = JSON.parse(String(span.attributes["gen_ai.output.messages"])) as Array<{
        parts: Array<{ type: string; content?: string; name?: string; arguments?: unknown }>;
      }>;
      const toolParts = output[0]!.parts.filter((p) => p.type === "tool_call");
      expect(toolParts.map((p) => [p.name, p.arguments])).toEqual(
        (message.tool_calls ?? []).map((c) => [c.name, c.arguments]),
      );
    }

    // Tool calls: name, call id, arguments and result as the trajectory has them, and who called.
    const toolMessages = simulation.messages.filter((m) => m.role === "tool");
    const callsById = new Map(calls.flatMap((m) => (m.tool_calls ?? []).map((c) => [c.id, c] as const)));
    const tools = children.filter((s) => s.name.startsWith("execute_tool "));
    expect(tools.length).toBe(toolMessages.length);
    expect(tools.length).toBe(4);
    for (const [i, span] of tools.entries()) {
      const result = toolMessages[i]!;
      const call = callsById.get(result.id)!;
      expect(span.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.name,
        "gen_ai.tool.call.id": call.id,
        "passk.tool.caller": "agent",
      });
      expect(JSON.parse(String(span.attributes["gen_ai.tool.call.arguments"]))).toEqual(call.arguments);
      const content = result.content ?? "";
      const traced = String(span.attributes["gen_ai.tool.call.result"]);
      if (content.length <= 4096) expect(traced).toBe(content);
      else expect(traced.startsWith(content.slice(0, 4096))).toBe(true);
      expect(span.status.code ?? 0).not.toBe(2);
    }
  }

  // The 429 on the very first call: that call's span records two attempts, and the refused one is
  // its child with an error status, its reason without the key the body echoed.
  const attempts = spans.filter((s) => s.name.startsWith("attempt "));
  expect(attempts.length).toBe(1);
  const retried = spans.find((s) => s.spanId === attempts[0]!.parentSpanId)!;
  expect(retried.name).toBe("chat gpt-4.1");
  expect(retried.attributes["passk.attempts"]).toBe(2);
  expect(attempts[0]!.status.code).toBe(2);
  expect(attempts[0]!.attributes["error.type"]).toBe("429");
  expect(attempts[0]!.status.message).toContain("[redacted]");
  expect(
    spans
      .filter((s) => s.name.startsWith("chat ") && s !== retried)
      .every((s) => s.attributes["passk.attempts"] === 1),
  ).toBe(true);
}

describe("passk run --otel", () => {
  const data = new DomainData(builtinDomains.get("airline")!, tau2DataDir());

  it("sends one trace per conversation: the conversation at the root, its model and tool calls as children in order, with GenAI attributes, usage, cost and the grade, and no secret", async () => {
    const receiver = await startReceiver();
    servers.push({ close: () => new Promise((resolve) => receiver.server.close(resolve)) });
    const model = await mockModel(data);
    const result = await runCliInProcess(
      [...runFlags("traced", model.baseUrl), "--num-trials", "2", "--otel"],
      {
        ...ENV,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer%20${OTLP_TOKEN}`,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain("traces could not be sent");
    const results = readSimulations("traced");
    expect(results.simulations.map((s) => s.reward_info?.reward)).toEqual([1, 1]);

    expectTracesOfRun(receiver.exports, results);
  });

  it("warns once when the collector is down, and the run goes on and exits 0 with the same results", async () => {
    // A port nothing listens on.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));

    const model = await mockModel(data);
    const result = await runCliInProcess(
      [...runFlags("down", model.baseUrl), "--otel", `http://127.0.0.1:${port}`],
      ENV,
    );
    expect(result.code, result.stderr).toBe(0);
    const warnings = result.stderr.split("\n").filter((line) => line.includes("traces could not be sent"));
    expect(warnings).toEqual([
      `warning: traces could not be sent to http://127.0.0.1:${port}/v1/traces (ECONNREFUSED); the run goes on without them — is the collector running? (--otel URL, OTEL_EXPORTER_OTLP_ENDPOINT)`,
    ]);
    expect(readSimulations("down").simulations.map((s) => s.reward_info?.reward)).toEqual([1]);
  });

  it("flushes the spans of a run that fails: the refused call and its conversation arrive with error status", async () => {
    const receiver = await startReceiver();
    servers.push({ close: () => new Promise((resolve) => receiver.server.close(resolve)) });
    const model = await startMockLlmServer({
      script: [mockReply.error(401, { message: "invalid api key" })],
    });
    servers.push(model);
    const result = await runCliInProcess(
      [...runFlags("refused", model.baseUrl), "--otel", receiver.url],
      ENV,
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("refused the credentials");
    const { spans } = receivedSpans(receiver.exports);
    const root = spans.find((s) => s.parentSpanId === undefined)!;
    expect(root.name).toBe("conversation airline");
    expect(root.status.code).toBe(2);
    expect(root.attributes["error.type"]).toBe("ConfigError");
    const chat = spans.find((s) => s.parentSpanId === root.spanId)!;
    expect(chat.name).toBe("chat gpt-4.1");
    expect(chat.status.code).toBe(2);
    expect(chat.status.message).toContain("HTTP 401");
    for (const received of receiver.exports) expect(received.text).not.toContain(API_KEY);
  });

  it("Ctrl-C twice: the abandoned conversation's spans are flushed before the process exits, marked interrupted", async () => {
    const receiver = await startReceiver();
    servers.push({ close: () => new Promise((resolve) => receiver.server.close(resolve)) });
    const script = tracedScript(data);
    const model = await startMockLlmServer({
      promptCache: false,
      script: (request) => ({ ...script(request), delayMs: 400 }) as MockLlmReply,
    });
    servers.push(model);
    const child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, "bin", "passk.js"),
        ...runFlags("interrupted", model.baseUrl),
        "--otel",
        receiver.url,
      ],
      { cwd: REPO_ROOT, env: { ...process.env, ...ENV } },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    while (model.requests.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    child.kill("SIGINT");
    await new Promise((resolve) => setTimeout(resolve, 100));
    child.kill("SIGINT");
    expect(await exited, stderr).toBe(130);
    // Exported at the exit: the batch interval (2 s) had not come round yet.
    const { spans } = receivedSpans(receiver.exports);
    const root = spans.find((s) => s.parentSpanId === undefined)!;
    expect(root.name).toBe("conversation airline");
    expect(root.status.code).toBe(2);
    expect(root.attributes["error.type"]).toBe("SimulationAbortedError");
    expect(spans.filter((s) => s.parentSpanId === root.spanId).length).toBeGreaterThanOrEqual(2);
  });
});

describe("passk worker --otel", () => {
  const data = new DomainData(builtinDomains.get("airline")!, tau2DataDir());

  it("traces the conversations it runs for a coordinator as a local run traces them, and flushes them on SIGTERM", async () => {
    const redis = await startRedisServer();
    servers.push({ close: () => redis.stop() });
    const receiver = await startReceiver();
    servers.push({ close: () => new Promise((resolve) => receiver.server.close(resolve)) });
    const model = await mockModel(data);
    // The variable turns tracing on, as for `passk run`; one conversation at a time (the script is sequential).
    const worker = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, "bin", "passk.js"),
        "worker",
        "--queue",
        redis.url,
        "--concurrency",
        "1",
        "--allow-endpoint",
        model.baseUrl,
      ],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          ...ENV,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer%20${OTLP_TOKEN}`,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    worker.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => worker.on("close", (code) => resolve(code)));
    servers.push({ close: () => worker.kill("SIGKILL") });
    while (!stderr.includes("ready")) {
      if (worker.exitCode !== null) throw new Error(`passk worker exited: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The coordinator has no --otel: every span below comes from the worker.
    const result = await runCliInProcess(
      [...runFlags("worker-traced", model.baseUrl), "--num-trials", "2", "--queue", redis.url],
      ENV,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(stderr.match(/ trial \d: user_stop/g)).toHaveLength(2);
    worker.kill("SIGTERM");
    expect(await exited, stderr).toBe(0);
    expectTracesOfRun(receiver.exports, readSimulations("worker-traced"));
  });
});

describe("passk simulate --otel", () => {
  const data = new DomainData(builtinDomains.get("airline")!, tau2DataDir());

  it("sends the conversation as one trace with its grade", async () => {
    const receiver = await startReceiver();
    servers.push({ close: () => new Promise((resolve) => receiver.server.close(resolve)) });
    const model = await mockModel(data);
    const result = await runCliInProcess(
      [
        "simulate",
        "--domain",
        "airline",
        "--task",
        TASK,
        "--agent-llm",
        "openai:gpt-4.1",
        "--agent-llm-base-url",
        model.baseUrl,
        "--user-llm",
        "openai:gpt-4.1",
        "--user-llm-base-url",
        model.baseUrl,
        "--json",
        "--otel",
        receiver.url,
      ],
      ENV,
    );
    expect(result.code, result.stderr).toBe(0);
    const simulation = JSON.parse(result.stdout) as {
      id: string;
      messages: Message[];
      reward_info: { reward: number };
    };
    expect(simulation.reward_info.reward).toBe(1);
    const { spans } = receivedSpans(receiver.exports);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const root = spans.find((s) => s.parentSpanId === undefined)!;
    expect(root.attributes).toMatchObject({
      "passk.task.id": TASK,
      "passk.seed": 300,
      "passk.simulation.id": simulation.id,
      "passk.reward": 1,
      "passk.termination_reason": "user_stop",
    });
    const children = spans.filter((s) => s.parentSpanId === root.spanId).sort(byStart);
    expect(children.map((s) => s.name)).toEqual(expectedChildren(simulation.messages));
  });
});

describe("passk serve --otel", () => {
  const data = new DomainData(builtinDomains.get("airline")!, tau2DataDir());

  it("traces each playground conversation, and flushes when the server stops", async () => {
    const receiver = await startReceiver();
    servers.push({ close: () => new Promise((resolve) => receiver.server.close(resolve)) });
    const model = await mockModel(data);
    const child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, "bin", "passk.js"),
        "serve",
        "--port",
        "0",
        "--store",
        path.join(dir, "serve.db"),
        "--agent-llm",
        "openai:gpt-4.1",
        "--agent-llm-base-url",
        model.baseUrl,
        "--user-llm",
        "openai:gpt-4.1",
        "--user-llm-base-url",
        model.baseUrl,
        "--otel",
        receiver.url,
      ],
      { cwd: REPO_ROOT, env: { ...process.env, ...ENV }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      void exited.then((code) => reject(new Error(`passk serve exited with ${code}: ${stderr}`)));
    });
    const started = await fetch(`${url}/api/conversations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ domain: "airline", taskId: TASK, mode: "simulate" }),
    });
    expect(started.status, await started.clone().text()).toBe(201);
    const { conversationId } = (await started.json()) as { conversationId: string };
    // The event stream ends with the conversation.
    const stream = await (await fetch(`${url}/api/conversations/${conversationId}/events?after=-1`)).text();
    expect(stream).toContain('"type":"reward"');
    child.kill("SIGTERM");
    await exited;

    const { spans } = receivedSpans(receiver.exports);
    const root = spans.find((s) => s.parentSpanId === undefined)!;
    expect(root.attributes).toMatchObject({
      "passk.simulation.id": conversationId,
      "passk.task.id": TASK,
      "passk.agent.llm": "openai:gpt-4.1",
      "passk.reward": 1,
      "passk.termination_reason": "user_stop",
    });
    const children = spans.filter((s) => s.parentSpanId === root.spanId).map((s) => s.name);
    expect(children.filter((name) => name === "chat gpt-4.1").length).toBeGreaterThanOrEqual(5);
    expect(children.filter((name) => name.startsWith("execute_tool ")).length).toBe(4);
    for (const received of receiver.exports) expect(received.text).not.toContain(API_KEY);
  });
});
