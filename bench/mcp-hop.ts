/**
 * The cost of the MCP hop: what a tool call made by a remote agent (`--agent-llm a2a:URL` / `http:URL`)
 * over passk's per-conversation MCP endpoint costs beyond the same call made in process (what the
 * built-in LLM agent's calls cost the orchestrator).
 *
 * Setup: one airline world, `get_user_details` (a read tool answering a ~1 KB record). In process: the
 * orchestrator's `executeToolCall` on the world. Over MCP: an agent speaking passk's HTTP protocol in this
 * same process makes the calls one after another while passk drives the session as the orchestrator does
 * (each call becomes an assistant message, executed, its result returned by the next `respond`), with
 * two clients: `@modelcontextprotocol/sdk`'s Streamable HTTP client, and a bare JSON-RPC POST with the
 * platform fetch. For scale, a bare loopback HTTP round trip (the same fetch, a server answering `{}`)
 * is measured too: the part of the hop no MCP server can save. Loopback HTTP on 127.0.0.1, both ends in
 * one process (pinned to one core by `npm run bench`, so the figure includes both sides' CPU), after a
 * warm-up; median of 5 passes. The machine may be shared: the load average is printed with the figures.
 *
 * Usage: node --import tsx bench/mcp-hop.ts [calls per pass]   (run by `npm run bench`)
 */
import { createServer } from "node:http";
import os from "node:os";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { McpAccess } from "../src/agents/remote/protocol.js";
import { remoteAgent } from "../src/agents/remote/remote-agent.js";
import { DEFAULT_FIRST_AGENT_MESSAGE } from "../src/core/agent.js";
import type { AssistantMessage } from "../src/core/message.js";
import { builtinDomains } from "../src/domains/registry.js";
import { toolSpecs } from "../src/env/tool-schema.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { executeToolCall } from "../src/orchestrator/tool-call.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";

const CALLS = Number(process.argv[2] ?? 500);
const PASSES = 5;
const TOOL = "get_user_details";
const ARGS = { user_id: "mia_li_3668" };

const data = new DomainData(builtinDomains.get("airline")!, tau2DataDir());
const task = data.tasks[0]!;
const world = data.newWorld({ task });

type McpCaller = (access: McpAccess) => Promise<{ call(): Promise<void>; close(): Promise<void> }>;

const sdkClient: McpCaller = async (access) => {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(access.url), {
      requestInit: { headers: { authorization: `Bearer ${access.token}` } },
    }),
  );
  return {
    call: async () => void (await client.callTool({ name: TOOL, arguments: ARGS })),
    close: () => client.close(),
  };
};

const bareFetch: McpCaller = async (access) => {
  let id = 0;
  return {
    call: async () => {
      const response = await fetch(access.url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${access.token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: ++id,
          method: "tools/call",
          params: { name: TOOL, arguments: ARGS },
        }),
      });
      await response.json();
    },
    close: async () => undefined,
  };
};

/** An agent of passk's HTTP protocol whose every turn makes `calls` MCP calls, one after another. */
async function startAgent(caller: McpCaller, calls: number) {
  let access: McpAccess | undefined;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", async () => {
      const reply = (status: number, body: unknown) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
      };
      if (request.method === "DELETE") return reply(204, {});
      if (request.url === "/conversations") {
        access = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { mcp: McpAccess }).mcp;
        return reply(201, { id: "bench" });
      }
      const client = await caller(access!);
      for (let i = 0; i < calls; i++) await client.call();
      await client.close();
      reply(200, { content: "done" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** One turn of `calls` MCP calls driven as the orchestrator drives it; milliseconds per call. */
async function hopPass(caller: McpCaller, calls: number): Promise<number> {
  const agentServer = await startAgent(caller, calls);
  const agent = remoteAgent(`http:${agentServer.url}`, { env: {} });
  const session = await agent.start({
    policy: data.policy,
    tools: toolSpecs(data.domain.agent.tools),
    solo: false,
    seed: 0,
    history: [{ role: "assistant", content: DEFAULT_FIRST_AGENT_MESSAGE }],
  });
  const start = performance.now();
  let message: AssistantMessage = await session.respond([{ role: "user", content: "Hi" }]);
  let seen = 0;
  while (message.tool_calls?.length) {
    const call = message.tool_calls[0]!;
    const result = await executeToolCall(world, call);
    seen++;
    message = await session.respond([
      { role: "tool", id: call.id, content: result.content, requestor: "assistant", error: result.error },
    ]);
  }
  const ms = (performance.now() - start) / calls;
  if (seen !== calls) throw new Error(`expected ${calls} tool calls, saw ${seen}`);
  await session.end();
  agentServer.close();
  return ms;
}

function inProcessPass(calls: number): number {
  const start = performance.now();
  for (let i = 0; i < calls; i++)
    void executeToolCall(world, { id: `c${i}`, name: TOOL, arguments: ARGS, requestor: "assistant" });
  return (performance.now() - start) / calls;
}

/** A bare loopback HTTP round trip with the platform fetch; milliseconds per request. */
async function roundTripPass(calls: number): Promise<number> {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const start = performance.now();
  for (let i = 0; i < calls; i++) await (await fetch(url, { method: "POST", body: "{}" })).json();
  const ms = (performance.now() - start) / calls;
  server.close();
  return ms;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

inProcessPass(CALLS);
const inProcess = median(Array.from({ length: PASSES }, () => inProcessPass(CALLS)));
await roundTripPass(Math.min(CALLS, 200));
const roundTrips: number[] = [];
for (let pass = 0; pass < PASSES; pass++) roundTrips.push(await roundTripPass(CALLS));
const roundTrip = median(roundTrips);
for (const [name, caller] of [
  ["@modelcontextprotocol/sdk client", sdkClient],
  ["bare JSON-RPC fetch", bareFetch],
] as const) {
  await hopPass(caller, Math.min(CALLS, 200));
  const passes: number[] = [];
  for (let pass = 0; pass < PASSES; pass++) passes.push(await hopPass(caller, CALLS));
  const ms = median(passes);
  console.log(
    JSON.stringify({
      bench: "mcp-hop",
      client: name,
      tool: TOOL,
      calls: CALLS,
      in_process_ms_per_call: Number(inProcess.toFixed(4)),
      mcp_ms_per_call: Number(ms.toFixed(3)),
      overhead_ms_per_call: Number((ms - inProcess).toFixed(3)),
      http_round_trip_ms: Number(roundTrip.toFixed(3)),
      load_average: Number(os.loadavg()[0]!.toFixed(2)),
    }),
  );
}
