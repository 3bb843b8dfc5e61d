import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { UserSimulator } from "../../src/core/agent.js";
import type { SimulationRun } from "../../src/core/simulation.js";
import { ConversationStartSchema, type ConversationStart } from "../../src/agents/remote/protocol.js";

/** One request a hostile server received, its body as text. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local server on 127.0.0.1 that answers each request as `handle` likes: slowly, hugely, wrongly. */
export interface HostileServer {
  url: string;
  readonly requests: readonly ReceivedRequest[];
  close(): Promise<void>;
}

export async function hostileServer(
  handle: (request: ReceivedRequest, response: ServerResponse) => void | Promise<void>,
): Promise<HostileServer> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const request: ReceivedRequest = {
        method: incoming.method ?? "GET",
        path: incoming.url ?? "/",
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(request);
      void Promise.resolve(handle(request, response)).catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/**
 * An agent speaking passk's HTTP protocol whose answer to each customer message is up to `onMessage`,
 * which writes the response itself (or returns a string: the reply).
 */
export async function hostileHttpAgent(
  onMessage: (
    conversation: { id: string; start: ConversationStart; turn: number },
    content: string,
    response: ServerResponse,
  ) => string | void | Promise<string | void>,
): Promise<HostileServer & { conversations: Map<string, ConversationStart> }> {
  const conversations = new Map<string, ConversationStart>();
  const turns = new Map<string, number>();
  const server = await hostileServer(async (request, response) => {
    if (request.method === "POST" && request.path === "/conversations") {
      const id = `c${conversations.size + 1}`;
      conversations.set(id, ConversationStartSchema.parse(JSON.parse(request.body)));
      return sendJson(response, 201, { id });
    }
    const match = /^\/conversations\/([^/]+)(\/messages)?$/.exec(request.path);
    const start = match ? conversations.get(match[1]!) : undefined;
    if (!match || !start) return sendJson(response, 404, { error: "no such conversation" });
    if (request.method === "DELETE") return void response.writeHead(204).end();
    const turn = (turns.get(match[1]!) ?? 0) + 1;
    turns.set(match[1]!, turn);
    const content = (JSON.parse(request.body) as { content: string }).content;
    const reply = await onMessage({ id: match[1]!, start, turn }, content, response);
    if (typeof reply === "string") sendJson(response, 200, { content: reply });
  });
  return Object.assign(server, { conversations });
}

/** A minimal A2A agent card naming `url` as its JSON-RPC endpoint. */
export function a2aCard(url: string, streaming = false): unknown {
  return {
    name: "hostile",
    description: "a hostile A2A agent",
    version: "1",
    supportedInterfaces: [{ url: `${url}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    capabilities: { streaming },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
  };
}

/** One MCP `tools/call` with bare fetch, as any agent could send it; the result's text. */
export async function callMcpTool(
  access: { url: string; token: string },
  name: string,
  args: Record<string, unknown>,
): Promise<{ status: number; text: string; isError: boolean }> {
  const response = await fetch(access.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${access.token}`,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const body = (await response.json()) as {
    result?: { content: Array<{ text: string }>; isError?: boolean };
    error?: { message: string };
  };
  return {
    status: response.status,
    text: body.result?.content[0]?.text ?? body.error?.message ?? "",
    isError: body.result?.isError ?? true,
  };
}

/** A customer who says its lines in order, then hangs up. */
export function scriptedCustomer(lines: readonly string[]): UserSimulator {
  return {
    name: "scripted-customer",
    start: () => {
      let next = 0;
      return {
        respond: async () => ({ role: "user", content: lines[next++] ?? "Thanks, bye. ###STOP###" }),
      };
    },
  };
}

/** The reason a conversation ended unscored (`info.error`). */
export const errorOf = (run: SimulationRun): string =>
  String((run.info as { error?: unknown } | null | undefined)?.error ?? "");
