/**
 * A customer-service agent built with the Vercel AI SDK, its tools over MCP (`@modelcontextprotocol/sdk`'s
 * client), served over A2A (`@a2a-js/sdk`'s server, JSON-RPC with streaming) — the shape of a team's real
 * agent, testable with passk as it runs:
 *
 *   OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-… AGENT_MODEL=gpt-4.1-mini \
 *     node --import tsx examples/agents/ts-ai-sdk/agent.ts --port 9999
 *   npx passk run --domain airline --agent-llm a2a:http://127.0.0.1:9999 --user-llm openai:gpt-4.1
 *
 * passk puts the conversation's MCP endpoint in the metadata of every A2A message
 * (`passk/mcp` = { url, token }) and the policy in the first one (`passk/start` = { policy, history, solo });
 * the agent keeps one conversation per A2A context. `--port 0` picks a free port; the first line printed
 * is the agent's URL.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import {
  A2A_VERSION_HEADER,
  AgentCard,
  SSE_HEADERS,
  Task,
  TaskStatusUpdateEvent,
  formatSSEEvent,
} from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  defaultServerCallContextBuilder,
  validateVersion,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { dynamicTool, generateText, jsonSchema, stepCountIs, type ModelMessage, type ToolSet } from "ai";

const model = createOpenAICompatible({
  name: "agent",
  baseURL: process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1",
  apiKey: process.env.OPENAI_API_KEY ?? "",
})(process.env.AGENT_MODEL ?? "gpt-4.1-mini");

/** One conversation (one A2A context): the model's messages so far and the conversation's MCP tools. */
interface Conversation {
  system: string;
  messages: ModelMessage[];
  tools: ToolSet;
  mcp: McpClient;
}

const conversations = new Map<string, Promise<Conversation>>();

async function openConversation(metadata: Record<string, unknown>): Promise<Conversation> {
  const access = metadata["passk/mcp"] as { url: string; token: string } | undefined;
  if (!access) throw new Error('the first message must carry metadata["passk/mcp"] = { url, token }');
  const start = (metadata["passk/start"] ?? {}) as {
    policy?: string;
    history?: Array<{ role: string; content: string | null }>;
  };
  const mcp = new McpClient({ name: "ts-ai-sdk-example", version: "1.0.0" });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(access.url), {
      requestInit: { headers: { authorization: `Bearer ${access.token}` } },
    }),
  );
  const tools: ToolSet = {};
  for (const tool of (await mcp.listTools()).tools) {
    tools[tool.name] = dynamicTool({
      description: tool.description ?? "",
      inputSchema: jsonSchema(tool.inputSchema as Parameters<typeof jsonSchema>[0]),
      execute: async (input) => {
        const result = await mcp.callTool({ name: tool.name, arguments: input as Record<string, unknown> });
        const content = Array.isArray(result.content)
          ? (result.content as Array<{ type: string; text?: string }>)
          : [];
        return content.map((part) => (part.type === "text" ? (part.text ?? "") : "")).join("\n");
      },
    });
  }
  // Earlier text turns (usually passk's greeting in the agent's name) continue the conversation.
  const messages: ModelMessage[] = (start.history ?? [])
    .filter((m) => (m.role === "user" || m.role === "assistant") && m.content)
    .map((m) => ({ role: m.role as "user" | "assistant", content: m.content! }));
  const system =
    "You are a customer service agent. Help the customer by following the policy below. Use the tools " +
    `to look things up and to act; never invent information.\n\n<policy>\n${start.policy ?? ""}\n</policy>`;
  return { system, messages, tools, mcp };
}

/** Answers one customer message: the model calls tools (possibly several at once) until it can reply. */
async function reply(conversation: Conversation, text: string): Promise<string> {
  conversation.messages.push({ role: "user", content: text });
  const result = await generateText({
    model,
    system: conversation.system,
    messages: conversation.messages,
    tools: conversation.tools,
    temperature: 0,
    stopWhen: stepCountIs(30),
  });
  conversation.messages.push(...result.response.messages);
  return result.text;
}

/** The A2A side: every message becomes a task that works, then completes with the reply as its status message. */
const executor: AgentExecutor = {
  async execute(context: RequestContext, bus: ExecutionEventBus) {
    const { taskId, contextId, userMessage } = context;
    if (!context.task)
      bus.publish(
        AgentEvent.task(
          Task.fromJSON({ id: taskId, contextId, status: { state: "TASK_STATE_SUBMITTED" }, history: [] }),
        ),
      );
    // Progress, then the answer: a final status whose message is the agent's reply.
    const status = (state: string, text?: string) =>
      bus.publish(
        AgentEvent.statusUpdate(
          TaskStatusUpdateEvent.fromJSON({
            taskId,
            contextId,
            status: {
              state,
              ...(text !== undefined
                ? {
                    message: {
                      messageId: randomUUID(),
                      role: "ROLE_AGENT",
                      contextId,
                      taskId,
                      parts: [{ text }],
                    },
                  }
                : {}),
            },
          }),
        ),
      );
    if (userMessage.metadata?.["passk/end"] !== undefined) {
      // The conversation is over: let go of it (passk does not read this answer).
      conversations.delete(contextId);
      status("TASK_STATE_COMPLETED", "Bye.");
      bus.finished();
      return;
    }
    status("TASK_STATE_WORKING");
    try {
      let conversation = conversations.get(contextId);
      if (!conversation) {
        conversation = openConversation(userMessage.metadata ?? {});
        conversations.set(contextId, conversation);
        conversation.catch(() => conversations.delete(contextId));
      }
      const text = userMessage.parts
        .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
        .join("\n");
      const answer = await reply(await conversation, text);
      status("TASK_STATE_COMPLETED", answer);
    } catch (error) {
      status("TASK_STATE_FAILED", error instanceof Error ? error.message : String(error));
    }
    bus.finished();
  },
  async cancelTask() {},
};

const { values } = parseArgs({ options: { host: { type: "string" }, port: { type: "string" } } });
const host = values.host ?? "127.0.0.1";
let card: AgentCard;
const handler = (url: string) =>
  new DefaultRequestHandler(
    (card = AgentCard.fromJSON({
      name: "ts-ai-sdk-example",
      description: "A customer-service agent on the Vercel AI SDK, its tools over MCP.",
      version: "1.0.0",
      supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      capabilities: { streaming: true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [
        { id: "customer-service", name: "Customer service", description: "Helps customers.", tags: [] },
      ],
    })),
    new InMemoryTaskStore(),
    executor,
  );
let jsonRpc: JsonRpcTransportHandler;

/** A2A's JSON-RPC binding over node:http: one JSON answer, or server-sent events for streams. */
async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method === "GET" && request.url === "/.well-known/agent-card.json") {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(AgentCard.toJSON(card)));
    return;
  }
  if (request.method !== "POST" || request.url !== "/") {
    response.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString("utf8");
  const version = request.headers[A2A_VERSION_HEADER.toLowerCase()];
  const context = defaultServerCallContextBuilder({
    extensions: undefined,
    user: new UnauthenticatedUser(),
    headers: request.headers,
    ...(typeof version === "string" ? { requestedVersion: version } : {}),
  });
  let answer: Awaited<ReturnType<JsonRpcTransportHandler["handle"]>>;
  try {
    validateVersion(context.requestedVersion, card, "JSONRPC");
    answer = await jsonRpc.handle(body, context);
  } catch (error) {
    answer = { jsonrpc: "2.0", id: null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) };
  }
  if (Symbol.asyncIterator in answer) {
    response.writeHead(200, SSE_HEADERS);
    for await (const event of answer) response.write(formatSSEEvent(event));
    response.end();
    return;
  }
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify(answer));
}

const server = createServer((request, response) => {
  serve(request, response).catch(() => {
    if (!response.headersSent) response.writeHead(500).end();
    else response.destroy();
  });
});
server.listen(Number(values.port ?? 9999), host, () => {
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  jsonRpc = new JsonRpcTransportHandler(handler(`${url}/`));
  console.log(url);
});
