import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import {
  createServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { ConfigError } from "../../core/errors.js";
import type { LlmToolSpec } from "../../core/llm.js";
import { parseJsonKeepingPyFloats } from "../../python/py-float.js";
import { passkVersion } from "../../version.js";

/** What one conversation's MCP endpoint serves. */
export interface McpEndpointHandlers {
  /** Listed by `tools/list` exactly as given: names, descriptions and JSON Schemas. */
  tools: readonly LlmToolSpec[];
  /**
   * Answers one `tools/call`. `signal` aborts when the agent's request goes away (it disconnected, or
   * the endpoint closed) before the answer was sent.
   */
  callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ content: string; error: boolean }>;
  /** Any authenticated request reached the endpoint (the agent is alive). */
  onActivity?(): void;
}

/** One conversation's MCP endpoint: its URL, its bearer token, and how to close it. */
export interface McpEndpoint {
  readonly url: string;
  readonly token: string;
  /** Stops serving: later requests get 401, calls in flight are aborted. Idempotent. */
  close(): Promise<void>;
}

export interface McpToolServerOptions {
  /** Address the listener binds to; default 127.0.0.1 (only this machine's agents can reach it). */
  host?: string;
  /** Port; default 0 (any free port, chosen when the first conversation opens). */
  port?: number;
  /** The base URL agents are told (behind a proxy, or when `host` is 0.0.0.0); default `http://host:port`. */
  publicUrl?: string;
}

/** The largest MCP request body read (the SDK's own default). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Serves the tools of many conversations over MCP (Streamable HTTP, the official SDK's server), each at
 * its own URL (`/mcp/<random id>`) behind its own random bearer token: a token reaches only its own
 * conversation's tools, and any other request — no token, a wrong one, another conversation's, a closed
 * conversation's — gets 401 without saying which conversations exist.
 *
 * One listener serves every open conversation of the process; it starts with the first and closes
 * with the last (it never keeps the process alive). Each request gets a fresh stateless MCP server
 * (no `Mcp-Session-Id`), so an agent may reconnect, or use several clients, at any time.
 *
 * @example
 * const server = new McpToolServer();
 * const endpoint = await server.open({ tools, callTool: async (name, args) => world.call(name, args) });
 * // give the agent endpoint.url and endpoint.token … then:
 * await endpoint.close();
 */
export class McpToolServer {
  private readonly host: string;
  private readonly port: number;
  private readonly publicUrl: string | undefined;
  private readonly endpoints = new Map<string, { token: Buffer; handlers: McpEndpointHandlers }>();
  /** Requests in flight per endpoint, so that closing an endpoint aborts its calls. */
  private readonly activeRequests = new Map<string, Set<AbortController>>();
  private listener: Promise<{ server: HttpServer; baseUrl: string }> | undefined;
  /** One validator for every request's server: each would otherwise build its own Ajv (about 1 ms). */
  private readonly validator = new AjvJsonSchemaValidator();

  constructor(options: McpToolServerOptions = {}) {
    this.host = options.host ?? "127.0.0.1";
    this.port = options.port ?? 0;
    this.publicUrl = options.publicUrl?.replace(/\/+$/, "");
  }

  /** Conversations being served. */
  get openEndpoints(): number {
    return this.endpoints.size;
  }

  /** Whether the listener is up (it is while at least one conversation is open). */
  get listening(): boolean {
    return this.listener !== undefined;
  }

  /** Opens a conversation's endpoint, starting the listener if it is the first. */
  async open(handlers: McpEndpointHandlers): Promise<McpEndpoint> {
    const id = randomUUID();
    const token = randomBytes(32).toString("base64url");
    this.endpoints.set(id, { token: Buffer.from(token), handlers });
    let baseUrl: string;
    try {
      ({ baseUrl } = await (this.listener ??= this.listen()));
    } catch (error) {
      this.endpoints.delete(id);
      throw error;
    }
    let closed = false;
    return {
      url: `${baseUrl}/mcp/${id}`,
      token,
      close: async () => {
        if (closed) return;
        closed = true;
        this.endpoints.delete(id);
        const active = this.activeRequests.get(id);
        this.activeRequests.delete(id);
        for (const request of active ?? []) request.abort();
        if (this.endpoints.size === 0) await this.stopListening();
      },
    };
  }

  private listen(): Promise<{ server: HttpServer; baseUrl: string }> {
    return new Promise((resolve, reject) => {
      const server = createServer((request, response) => {
        this.handle(request, response).catch(() => {
          if (!response.headersSent) sendJson(response, 500, { error: "internal error" });
          else response.destroy();
        });
      });
      server.once("error", (error) => {
        this.listener = undefined;
        reject(listenFailure(error, this.host, this.port));
      });
      server.listen(this.port, this.host, () => {
        server.unref();
        const { port } = server.address() as AddressInfo;
        const host = this.host.includes(":") ? `[${this.host}]` : this.host;
        resolve({ server, baseUrl: this.publicUrl ?? `http://${host}:${port}` });
      });
    });
  }

  private async stopListening(): Promise<void> {
    const listener = this.listener;
    this.listener = undefined;
    if (!listener) return;
    const { server } = await listener.catch(() => ({ server: undefined }));
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? "/").split("?")[0]!;
    const id = /^\/mcp\/([0-9a-f-]{36})\/?$/.exec(path)?.[1];
    const endpoint = id === undefined ? undefined : this.endpoints.get(id);
    const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")?.[1];
    if (id === undefined) {
      sendJson(response, 404, { error: "not found: MCP endpoints are at /mcp/<conversation id>" });
      request.resume();
      return;
    }
    if (!endpoint || token === undefined || !sameToken(Buffer.from(token), endpoint.token)) {
      response.setHeader("www-authenticate", 'Bearer realm="passk", error="invalid_token"');
      sendJson(response, 401, {
        error:
          "unauthorized: send the conversation's token as `Authorization: Bearer <token>`; a token reaches only its own conversation, while it lasts",
      });
      request.resume();
      return;
    }
    endpoint.handlers.onActivity?.();
    if (request.method !== "POST") {
      // Stateless: no session to delete, and no server-sent notifications to stream (MCP allows 405).
      response.setHeader("allow", "POST");
      sendJson(response, 405, jsonRpcError(-32000, "Method not allowed: POST JSON-RPC messages to this URL"));
      request.resume();
      return;
    }
    const body = await readBody(request);
    if (body === undefined) {
      sendJson(
        response,
        413,
        jsonRpcError(-32600, `the request body is larger than ${MAX_BODY_BYTES} bytes`),
      );
      return;
    }
    let parsedBody: unknown;
    try {
      // Arguments keep `2.0` a float, as a model's arguments do when passk reads them.
      parsedBody = parseJsonKeepingPyFloats(body);
    } catch (error) {
      sendJson(response, 400, jsonRpcError(-32700, `Parse error: ${(error as Error).message}`));
      return;
    }
    const abort = new AbortController();
    let active = this.activeRequests.get(id!);
    if (!active) this.activeRequests.set(id!, (active = new Set()));
    active.add(abort);
    const server = mcpServer(endpoint.handlers, rawToolArguments(parsedBody), abort.signal, this.validator);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const finish = () => {
      active.delete(abort);
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    };
    abort.signal.addEventListener("abort", () => {
      if (!response.headersSent) sendJson(response, 401, { error: "the conversation has ended" });
      finish();
    });
    response.on("close", finish);
    await server.connect(transport);
    await transport.handleRequest(request, response, parsedBody);
  }
}

/**
 * A stateless MCP server for one request. The low-level `Server` is used rather than `McpServer`: the
 * tools must be listed with the JSON Schemas the agent is given, verbatim, and their arguments must reach
 * the world unvalidated (the world checks them and answers as it answers a model), where `McpServer`
 * would rebuild each schema from zod and validate arguments itself.
 */
function mcpServer(
  handlers: McpEndpointHandlers,
  rawArguments: ReadonlyMap<string | number, Record<string, unknown>>,
  endpointSignal: AbortSignal,
  jsonSchemaValidator: AjvJsonSchemaValidator,
): Server {
  const server = new Server(
    { name: "passk", version: passkVersion() },
    {
      jsonSchemaValidator,
      capabilities: { tools: { listChanged: false } },
      instructions: "The tools of one passk conversation. Each call acts on that conversation's world.",
    },
  );
  const tools: Tool[] = handlers.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters as Tool["inputSchema"],
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const args = rawArguments.get(extra.requestId) ?? request.params.arguments ?? {};
    const result = await handlers.callTool(
      request.params.name,
      args,
      AbortSignal.any([extra.signal, endpointSignal]),
    );
    return { content: [{ type: "text", text: result.content }], isError: result.error };
  });
  return server;
}

/** The `arguments` of each `tools/call` in a body, as parsed (floats marked), by JSON-RPC id. */
function rawToolArguments(body: unknown): Map<string | number, Record<string, unknown>> {
  const found = new Map<string | number, Record<string, unknown>>();
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== "object" || message === null) continue;
    const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
    if (method !== "tools/call" || (typeof id !== "string" && typeof id !== "number")) continue;
    const args = (params as { arguments?: unknown } | null)?.arguments;
    if (typeof args === "object" && args !== null && !Array.isArray(args))
      found.set(id, args as Record<string, unknown>);
  }
  return found;
}

/**
 * Why the MCP listener could not start, as a set-up error: the harness cannot serve the agent's tools,
 * so no conversation may be graded (before, every conversation ended as the agent's error, reward 0).
 */
function listenFailure(error: Error, host: string, port: number): ConfigError {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  const reason =
    code === "EADDRINUSE"
      ? `port ${port} is already in use (another passk run with the same PASSK_MCP_PORT, or another program); set PASSK_MCP_PORT to a free port, or leave it unset for any free port`
      : code === "EACCES"
        ? `this user may not listen on port ${port}; set PASSK_MCP_PORT to a port above 1023, or leave it unset`
        : code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EADDRNOTAVAIL"
          ? `"${host}" is not an address of this machine (${code}); set PASSK_MCP_HOST to one of its addresses (e.g. 127.0.0.1 or 0.0.0.0), or leave it unset`
          : `${error.message}${code ? ` (${code})` : ""}`;
  return new ConfigError(`passk cannot serve the agent's tools over MCP at ${where}: ${reason}`, {
    cause: error,
  });
}

function sameToken(given: Buffer, expected: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function jsonRpcError(code: number, message: string): unknown {
  return { jsonrpc: "2.0", id: null, error: { code, message } };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/** The body as text, or undefined past {@link MAX_BODY_BYTES}. */
function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on("end", () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}
