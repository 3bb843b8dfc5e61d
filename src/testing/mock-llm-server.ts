import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { anthropicCodec } from "./mock-llm-anthropic.js";
import { bedrockCodec, encodeAwsEventStreamMessage } from "./mock-llm-bedrock.js";
import type {
  MockCacheBreakpoint,
  MockLlmCodec,
  MockLlmConversation,
  MockLlmProtocol,
  MockLlmRoute,
  MockPromptLayout,
  SseEvent,
} from "./mock-llm-codec.js";
import { cohereCodec } from "./mock-llm-cohere.js";
import { googleCodec } from "./mock-llm-google.js";
import { openAiCodec } from "./mock-llm-openai.js";
import { openAiResponsesCodec } from "./mock-llm-openai-responses.js";
import {
  createMockPromptCache,
  type MockPromptCacheOptions,
  type MockPromptCacheUsage,
} from "./mock-llm-prompt-cache.js";
import { argumentsText, type MockLlmReply, type MockMessageReply, type MockUsage } from "./mock-llm-reply.js";

/** One request the mock server received, in wire form and read into passk's words. */
export interface MockLlmRequest extends MockLlmConversation {
  /** Call number, from 0, over every request the server received. */
  index: number;
  protocol: MockLlmProtocol;
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The JSON body exactly as received. */
  body: unknown;
  /** The prompt-cache markers the request carried (Anthropic's `cache_control`, Bedrock's `cachePoint`). */
  cacheBreakpoints: MockCacheBreakpoint[];
  /** What the simulated prompt cache read and wrote for it (replies whose usage was not scripted). */
  promptCache?: MockPromptCacheUsage;
  /** When it arrived (`Date.now()`), to check request rates. */
  receivedAt: number;
}

/**
 * What the server answers: a list played one reply per call, in order, or a function that decides from
 * the request (a "scripted model" reading the conversation).
 */
export type MockLlmScript =
  readonly MockLlmReply[] | ((request: MockLlmRequest) => MockLlmReply | Promise<MockLlmReply>);

export interface MockLlmServerOptions {
  script: MockLlmScript;
  /** Characters per streamed chunk. */
  streamChunkSize?: number;
  /** Latency added to every reply that sets none (for benchmarks). */
  delayMs?: number;
  /**
   * Simulate the providers' prompt caches for replies whose usage is not scripted (default on): Anthropic
   * and Bedrock cache at the request's markers and report cache reads and writes, OpenAI's wire caches
   * every prefix of at least `minTokens` (1024) on its own and reports cached tokens. `false` turns it off.
   */
  promptCache?: boolean | Partial<MockPromptCacheOptions>;
  /**
   * Keep every request in `requests` (default). Benchmarks turn it off: a thousand conversations'
   * requests, each with its whole history, would make the server's memory and GC grow all run long.
   */
  recordRequests?: boolean;
}

export interface MockLlmServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /**
   * `http://127.0.0.1:<port>/v1`: a base URL every provider can be given (routes are matched by their
   * ending, so `url` plus any prefix works too, e.g. `/openai/v1` as Groq's and Azure's paths have it).
   */
  readonly baseUrl: string;
  /** Every request received so far, in arrival order (empty when `recordRequests` is false). */
  readonly requests: readonly MockLlmRequest[];
  /** The most model requests it was answering at once so far (to check concurrency limits). */
  readonly peakConcurrentRequests: number;
  /** Replaces the script; call numbers go on counting. */
  setScript(script: MockLlmScript): void;
  close(): Promise<void>;
}

/**
 * The codec for a request path, matched by its ending so that any base path works: `…/chat/completions`
 * (Chat Completions), `…/responses` (OpenAI Responses), `…/messages` (Anthropic), `…/chat` (Cohere v2),
 * `…/models/{model}:generateContent` or `:streamGenerateContent` (Gemini, Vertex AI) and
 * `…/model/{modelId}/converse` or `/converse-stream` (Bedrock).
 */
function routeOf(
  path: string,
): { codec: MockLlmCodec; pathModel?: string; pathStream?: boolean } | undefined {
  if (path.endsWith("/chat/completions")) return { codec: openAiCodec };
  if (path.endsWith("/responses")) return { codec: openAiResponsesCodec };
  if (path.endsWith("/messages")) return { codec: anthropicCodec };
  if (path.endsWith("/chat")) return { codec: cohereCodec };
  const google = /\/models\/([^/]+):(generateContent|streamGenerateContent)$/.exec(path);
  if (google) {
    return {
      codec: googleCodec,
      pathModel: decodeURIComponent(google[1]!),
      pathStream: google[2] === "streamGenerateContent",
    };
  }
  const bedrock = /\/model\/([^/]+)\/(converse|converse-stream)$/.exec(path);
  if (bedrock) {
    return {
      codec: bedrockCodec,
      pathModel: decodeURIComponent(bedrock[1]!),
      pathStream: bedrock[2] === "converse-stream",
    };
  }
  return undefined;
}

/**
 * Starts an HTTP server on 127.0.0.1 (a free port) that speaks every wire protocol passk's providers use
 * (see {@link MockLlmProtocol}) and plays a declarative script: text, tool calls (malformed argument text
 * included), usage with cached tokens, errors with status and headers (each in its provider's error JSON,
 * with its rate-limit headers on a 429), fixed latency, hangs and connection resets, as JSON or as
 * streams (whichever the request asks for: SSE, or AWS's event stream for Bedrock). It records every
 * request. A call beyond the end of a list script gets a 400 that says so.
 *
 * @example
 * const server = await startMockLlmServer({ script: [mockReply.error(429, { retryAfterSeconds: 1 }), mockReply.text("Hi")] });
 * const model = createLanguageModel("openai-compatible:mock", { baseUrl: server.baseUrl });
 * // … server.requests[1].messages …
 * await server.close();
 */
export async function startMockLlmServer(options: MockLlmServerOptions): Promise<MockLlmServer> {
  let script = options.script;
  let scriptStart = 0;
  const chunkSize = options.streamChunkSize ?? 8;
  const requests: MockLlmRequest[] = [];
  const record = options.recordRequests ?? true;
  let received = 0;
  let answering = 0;
  let peak = 0;
  const promptCache =
    options.promptCache === false
      ? undefined
      : createMockPromptCache({
          minTokens: 1024,
          capacity: 100_000,
          ...(typeof options.promptCache === "object" ? options.promptCache : {}),
        });

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: unknown) => {
      if (!response.headersSent) {
        sendJson(response, 500, { error: { message: `mock LLM server failed: ${String(error)}` } });
      } else {
        response.destroy();
      }
    });
  });

  async function handle(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (incoming.url ?? "/").split("?")[0] ?? "/";
    const bodyText = await readBody(incoming);
    const matched = incoming.method === "POST" ? routeOf(path) : undefined;
    if (!matched) {
      sendJson(response, 404, { error: { message: `mock LLM server: no route ${incoming.method} ${path}` } });
      return;
    }
    const { codec } = matched;
    const headers = headersOf(incoming);
    const route: MockLlmRoute = {
      path,
      headers,
      ...(matched.pathModel !== undefined ? { pathModel: matched.pathModel } : {}),
      ...(matched.pathStream !== undefined ? { pathStream: matched.pathStream } : {}),
    };
    let body: unknown;
    let conversation: MockLlmConversation;
    // Explicit caching: the markers are recorded for every request, so the layout is read at once.
    let layout: MockPromptLayout | undefined;
    try {
      body = JSON.parse(bodyText);
      conversation = codec.parseRequest(body, route);
      if (codec.promptCaching === "explicit") layout = codec.promptLayout?.(body);
    } catch (error) {
      sendJson(
        response,
        400,
        codec.renderError(400, `mock LLM server: unreadable request body: ${String(error)}`),
      );
      return;
    }
    const request: MockLlmRequest = {
      index: received++,
      receivedAt: Date.now(),
      protocol: codec.protocol,
      path,
      headers,
      body,
      ...conversation,
      cacheBreakpoints: (layout?.breakpoints ?? []).map(({ at, index, marker }) => ({ at, index, marker })),
    };
    if (record) requests.push(request);

    answering++;
    peak = Math.max(peak, answering);
    try {
      await answer(request, codec, route, response, layout);
    } finally {
      answering--;
    }
  }

  async function answer(
    request: MockLlmRequest,
    codec: MockLlmCodec,
    route: MockLlmRoute,
    response: ServerResponse,
    layout: MockPromptLayout | undefined,
  ): Promise<void> {
    const reply = await nextReply(request);
    if (reply === undefined) {
      const count = Array.isArray(script) ? script.length : 0;
      sendJson(
        response,
        400,
        codec.renderError(
          400,
          `mock LLM server: the script has ${count} replies but call #${request.index - scriptStart + 1} arrived`,
        ),
      );
      return;
    }
    await play(reply, request, codec, route, response, layout);
  }

  async function nextReply(request: MockLlmRequest): Promise<MockLlmReply | undefined> {
    if (typeof script === "function") return script(request);
    const list: readonly MockLlmReply[] = script;
    return list[request.index - scriptStart];
  }

  async function play(
    reply: MockLlmReply,
    request: MockLlmRequest,
    codec: MockLlmCodec,
    route: MockLlmRoute,
    response: ServerResponse,
    layout: MockPromptLayout | undefined,
  ): Promise<void> {
    if (reply.kind === "hang") return; // the socket stays open until the client gives up or close()
    await sleep(reply.delayMs ?? options.delayMs ?? 0);
    if (reply.kind === "reset") {
      response.socket?.destroy();
      return;
    }
    if (reply.kind === "error") {
      const scripted = reply.headers ?? {};
      const text =
        reply.body ??
        JSON.stringify(codec.renderError(reply.status, reply.message ?? `HTTP ${reply.status}`, scripted));
      response.writeHead(reply.status, {
        "content-type": "application/json",
        ...codec.errorHeaders?.(reply.status, scripted),
        ...scripted,
      });
      response.end(text);
      return;
    }
    const context = {
      index: request.index,
      model: request.model,
      usage: withPromptCache(usageOf(reply, request), reply, request, codec, layout),
      chunkSize,
      route,
      body: request.body,
    };
    if (!request.stream) {
      sendJson(response, 200, codec.renderMessage(reply, context));
      return;
    }
    const awsEventStream = codec.streamFraming === "aws-event-stream";
    response.writeHead(200, {
      "content-type": awsEventStream ? "application/vnd.amazon.eventstream" : "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    for (const event of codec.renderStream(reply, context)) {
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
      if (response.destroyed) return;
      response.write(
        awsEventStream ? encodeAwsEventStreamMessage(event.event ?? "", event.data) : sse(event),
      );
    }
    response.end();
  }

  /** Estimated usage with what the simulated prompt cache read and wrote (scripted usage stays as scripted). */
  function withPromptCache(
    usage: MockUsage,
    reply: MockMessageReply,
    request: MockLlmRequest,
    codec: MockLlmCodec,
    layout: MockPromptLayout | undefined,
  ): MockUsage {
    const mode = codec.promptCaching;
    if (reply.usage || !promptCache || !mode || !codec.promptLayout) return usage;
    // Automatic caching starts at the shortest cacheable prompt: shorter ones are not laid out at all.
    if (mode === "automatic" && usage.promptTokens < promptCache.minTokens) return usage;
    const used = promptCache.use(
      `${codec.protocol}\u0000${request.model}`,
      layout ?? codec.promptLayout(request.body),
      mode,
      usage.promptTokens,
    );
    request.promptCache = used;
    if (mode === "automatic")
      return used.readTokens > 0 ? { ...usage, cachedTokens: used.readTokens } : usage;
    return { ...usage, cachedTokens: used.readTokens, cacheWriteTokens: used.writeTokens };
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    baseUrl: `${url}/v1`,
    get requests() {
      return requests;
    },
    get peakConcurrentRequests() {
      return peak;
    },
    setScript(next) {
      script = next;
      scriptStart = received;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** Scripted usage, else about four characters a token, so that costs in tests are non-zero and predictable. */
function usageOf(reply: MockMessageReply, request: MockLlmRequest): MockUsage {
  if (reply.usage) return reply.usage;
  const promptCharacters =
    request.system.length + JSON.stringify(request.messages).length + JSON.stringify(request.tools).length;
  const completionCharacters =
    (reply.text ?? "").length +
    (reply.toolCalls ?? []).reduce((sum, call) => sum + call.name.length + argumentsText(call).length, 0);
  return {
    promptTokens: Math.ceil(promptCharacters / 4),
    completionTokens: Math.max(1, Math.ceil(completionCharacters / 4)),
  };
}

function sse(event: SseEvent): string {
  return `${event.event !== undefined ? `event: ${event.event}\n` : ""}data: ${event.data}\n\n`;
}

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(value));
}

function headersOf(incoming: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    incoming.on("data", (part: Buffer) => parts.push(part));
    incoming.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    incoming.on("error", reject);
  });
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
