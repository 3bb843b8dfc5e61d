import { afterEach, describe, expect, it, vi } from "vitest";
import { InfrastructureError, type LlmMessage, type LlmToolSpec } from "../core/llm.js";
import { mockReply, startMockLlmServer, type MockLlmScript, type MockLlmServer } from "../testing/index.js";
import { createLanguageModel, type CreateLanguageModelOptions } from "./create-language-model.js";
import type { RetryEvent } from "./retry.js";

const ENV = { OPENAI_API_KEY: "sk-test-0123456789", ANTHROPIC_API_KEY: "ak-test-9876543210" };

const GET_ORDER: LlmToolSpec = {
  name: "get_order_details",
  description: "Look up an order by its id.",
  parameters: {
    type: "object",
    properties: {
      order_id: { type: "string", description: "The order id, such as '#W0000000'." },
      include: { type: "array", items: { type: "string", enum: ["items", "payments"] } },
    },
    required: ["order_id"],
    additionalProperties: false,
  },
};

const HELLO = { system: "You are a support agent.", messages: [{ role: "user" as const, content: "Hi" }] };

let server: MockLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(script: MockLlmScript): Promise<MockLlmServer> {
  server = await startMockLlmServer({ script });
  return server;
}

/** Fast, deterministic retries: 1 ms backoff and no jitter; the delays are recorded. */
function model(
  spec: string,
  base: MockLlmServer,
  options: CreateLanguageModelOptions & { events?: RetryEvent[] } = {},
) {
  const { events, retry, ...rest } = options;
  return createLanguageModel(spec, {
    baseUrl: base.baseUrl,
    env: ENV,
    ...rest,
    retry: { initialDelayMs: 1, jitter: 0, onRetry: (event) => events?.push(event), ...retry },
  });
}

describe.each([
  { stream: false, label: "JSON" },
  { stream: true, label: "SSE stream" },
])("openai over HTTP ($label)", ({ stream }) => {
  it("returns a text reply with usage and cost", async () => {
    const base = await serve([
      mockReply.text("Hello! How can I help?", { usage: { promptTokens: 1_000, completionTokens: 100 } }),
    ]);
    const response = await model("openai:gpt-4o", base, { stream }).generate(HELLO);
    expect(response.text).toBe("Hello! How can I help?");
    expect(response.toolCalls).toEqual([]);
    expect(response.usage).toEqual({ promptTokens: 1_000, completionTokens: 100 });
    // gpt-4o: $2.50 / $10 per million tokens.
    expect(response.cost).toBeCloseTo(0.0035, 12);
    expect(response.raw).toMatchObject({ id: "chatcmpl-mock-0", model: "gpt-4o", finish_reason: "stop" });
    expect(base.requests[0]!.stream).toBe(stream);
    expect(base.requests[0]!.system).toBe("You are a support agent.");
    expect(base.requests[0]!.messages).toEqual([{ role: "user", content: "Hi" }]);
  });

  it("round-trips a tool call: schema sent intact, arguments parsed, result sent back", async () => {
    const base = await serve([
      mockReply.toolCall("get_order_details", { order_id: "#W123", include: ["items"] }, { id: "call_A" }),
      mockReply.text("Your order has shipped."),
    ]);
    const agent = model("openai:gpt-4o", base, { stream });
    const first = await agent.generate({ ...HELLO, tools: [GET_ORDER] });
    expect(first.text).toBeNull();
    expect(first.toolCalls).toEqual([
      {
        id: "call_A",
        name: "get_order_details",
        arguments: { order_id: "#W123", include: ["items"] },
        argumentsText: '{"order_id":"#W123","include":["items"]}',
      },
    ]);
    const body = base.requests[0]!.body as {
      tools: { type: string; function: { name: string; parameters: unknown } }[];
    };
    expect(body.tools).toEqual([
      {
        type: "function",
        function: {
          name: GET_ORDER.name,
          description: GET_ORDER.description,
          parameters: GET_ORDER.parameters,
        },
      },
    ]);

    const conversation: LlmMessage[] = [
      ...HELLO.messages,
      { role: "assistant", content: null, toolCalls: first.toolCalls },
      { role: "tool", toolCallId: "call_A", toolName: "get_order_details", content: '{"status": "shipped"}' },
    ];
    const second = await agent.generate({ system: HELLO.system, messages: conversation, tools: [GET_ORDER] });
    expect(second.text).toBe("Your order has shipped.");
    expect(base.requests[1]!.messages).toEqual(conversation);
  });

  it("surfaces malformed argument text instead of throwing", async () => {
    const base = await serve([
      mockReply.toolCalls([
        { id: "call_bad", name: "get_order_details", arguments: '{"order_id": "#W1"' },
        { id: "call_list", name: "get_order_details", arguments: "[1, 2]" },
        { id: "call_unknown", name: "no_such_tool", arguments: { x: 1 } },
      ]),
      mockReply.text("Sorry, let me try again."),
    ]);
    const agent = model("openai:gpt-4o", base, { stream });
    const response = await agent.generate({ ...HELLO, tools: [GET_ORDER] });
    expect(response.toolCalls).toEqual([
      { id: "call_bad", name: "get_order_details", argumentsText: '{"order_id": "#W1"' },
      { id: "call_list", name: "get_order_details", argumentsText: "[1, 2]" },
      { id: "call_unknown", name: "no_such_tool", arguments: { x: 1 }, argumentsText: '{"x":1}' },
    ]);
    expect(response.toolCalls[0]).not.toHaveProperty("arguments");

    // The malformed call can be sent back with an error result; nothing crashes on the way.
    const followUp = await agent.generate({
      system: HELLO.system,
      messages: [
        ...HELLO.messages,
        { role: "assistant", content: null, toolCalls: [response.toolCalls[0]!] },
        {
          role: "tool",
          toolCallId: "call_bad",
          toolName: "get_order_details",
          content: "Error: bad JSON",
          isError: true,
        },
      ],
      tools: [GET_ORDER],
    });
    expect(followUp.text).toBe("Sorry, let me try again.");
    expect(base.requests[1]!.messages[2]).toMatchObject({
      role: "tool",
      toolCallId: "call_bad",
      content: "Error: bad JSON",
    });
  });
});

describe("anthropic over HTTP", () => {
  it.each([false, true])(
    "speaks the Messages API (stream: %s): text, tool calls, usage, cost, x-api-key",
    async (stream) => {
      const base = await serve([
        mockReply.toolCall(
          "get_order_details",
          { order_id: "#W9" },
          { id: "toolu_1", usage: { promptTokens: 1_000, completionTokens: 100 } },
        ),
        mockReply.text("Done.", { usage: { promptTokens: 10, completionTokens: 2 } }),
      ]);
      const agent = model("anthropic:claude-3-5-haiku-latest", base, { stream });
      const first = await agent.generate({ ...HELLO, tools: [GET_ORDER] });
      expect(base.requests[0]!.protocol).toBe("anthropic");
      expect(base.requests[0]!.path).toBe("/v1/messages");
      expect(base.requests[0]!.headers["x-api-key"]).toBe(ENV.ANTHROPIC_API_KEY);
      expect(base.requests[0]!.tools).toEqual([GET_ORDER]);
      expect(first.toolCalls).toEqual([
        {
          id: "toolu_1",
          name: "get_order_details",
          arguments: { order_id: "#W9" },
          argumentsText: '{"order_id":"#W9"}',
        },
      ]);
      // claude-3-5-haiku: $0.80 / $4 per million tokens.
      expect(first.cost).toBeCloseTo(1_000 * 0.8e-6 + 100 * 4e-6, 12);

      const conversation: LlmMessage[] = [
        ...HELLO.messages,
        { role: "assistant", content: null, toolCalls: first.toolCalls },
        {
          role: "tool",
          toolCallId: "toolu_1",
          toolName: "get_order_details",
          content: "not found",
          isError: true,
        },
      ];
      const second = await agent.generate({
        system: HELLO.system,
        messages: conversation,
        tools: [GET_ORDER],
      });
      expect(second.text).toBe("Done.");
      expect(second.usage).toEqual({ promptTokens: 10, completionTokens: 2 });
      expect(base.requests[1]!.messages).toEqual(conversation);
    },
  );
});

describe("provider faults", () => {
  it("retries a 429 after the server's Retry-After, then succeeds", async () => {
    const base = await serve([
      mockReply.error(429, { retryAfterSeconds: 1, message: "slow down" }),
      mockReply.text("ok"),
    ]);
    const events: RetryEvent[] = [];
    const started = Date.now();
    const response = await model("openai:gpt-4o", base, { events, retry: { initialDelayMs: 1 } }).generate(
      HELLO,
    );
    const elapsed = Date.now() - started;
    expect(response.text).toBe("ok");
    expect(base.requests).toHaveLength(2);
    expect(events).toEqual([{ attempt: 1, delayMs: 1_000, reason: "HTTP 429: slow down" }]);
    expect(elapsed).toBeGreaterThanOrEqual(990);
  });

  it("ends repeated 500s as an InfrastructureError after maxAttempts, with exponential waits", async () => {
    const base = await serve(Array.from({ length: 3 }, () => mockReply.error(500, { message: "boom" })));
    const events: RetryEvent[] = [];
    const error = await model("openai:gpt-4o", base, { events, retry: { maxAttempts: 3, initialDelayMs: 5 } })
      .generate(HELLO)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InfrastructureError);
    expect((error as InfrastructureError).attempts).toBe(3);
    expect((error as Error).message).toMatch(
      /^openai:gpt-4o: the provider call failed 3 times \(last: HTTP 500: boom\)/,
    );
    expect(base.requests).toHaveLength(3);
    expect(events.map((event) => event.delayMs)).toEqual([5, 10]);
  });

  it("abandons a hung call at the timeout, retries, and ends as an InfrastructureError", async () => {
    const base = await serve([mockReply.hang(), mockReply.hang()]);
    const started = Date.now();
    const error = await model("openai:gpt-4o", base, { timeoutMs: 150, retry: { maxAttempts: 2 } })
      .generate(HELLO)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InfrastructureError);
    expect((error as InfrastructureError).attempts).toBe(2);
    expect((error as Error).message).toContain("no answer within 150 ms (timeout)");
    expect(base.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it.each([false, true])(
    "recovers from a timeout and from a connection reset (stream: %s)",
    async (stream) => {
      const base = await serve([mockReply.hang(), mockReply.reset(), mockReply.text("back")]);
      const events: RetryEvent[] = [];
      const response = await model("openai:gpt-4o", base, { stream, timeoutMs: 150, events }).generate(HELLO);
      expect(response.text).toBe("back");
      expect(base.requests).toHaveLength(3);
      expect(events.map((event) => event.reason)).toEqual([
        "no answer within 150 ms (timeout)",
        expect.stringMatching(/socket|closed|connect|terminated|reset/i),
      ]);
    },
  );

  it("does not retry a 400 and reports it as an infrastructure error", async () => {
    const base = await serve([mockReply.error(400, { message: "context too long" })]);
    const error = await model("openai:gpt-4o", base)
      .generate(HELLO)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InfrastructureError);
    expect((error as InfrastructureError).attempts).toBe(1);
    expect((error as Error).message).toContain("context too long");
    expect(base.requests).toHaveLength(1);
  });

  it("stops at once, without retrying, when the caller aborts", async () => {
    const base = await serve([mockReply.hang(), mockReply.text("never")]);
    const controller = new AbortController();
    const generating = model("openai:gpt-4o", base, { timeoutMs: 5_000 })
      .generate({ ...HELLO, signal: controller.signal })
      .catch((caught: unknown) => caught);
    // Aborted once the provider holds the request (a fixed delay could abort before it was sent).
    await vi.waitFor(() => expect(base.requests).toHaveLength(1));
    controller.abort(new Error("run cancelled"));
    const error = await generating;
    expect(error).not.toBeInstanceOf(InfrastructureError);
    expect((error as Error).message).toBe("run cancelled");
    expect(base.requests).toHaveLength(1);
  });
});

describe("settings and JSON output", () => {
  it("sends --*-llm-args settings, with request params overriding them", async () => {
    const base = await serve([mockReply.text("a"), mockReply.text("b")]);
    const agent = model("openai-compatible:llama3.1:8b", base, {
      args: '{"temperature": 0.5, "max_tokens": 64, "seed": 3}',
    });
    await agent.generate(HELLO);
    await agent.generate({ ...HELLO, params: { temperature: 0 } });
    expect(base.requests[0]!.body).toMatchObject({
      model: "llama3.1:8b",
      temperature: 0.5,
      max_tokens: 64,
      seed: 3,
    });
    expect(base.requests[1]!.body).toMatchObject({ temperature: 0, max_tokens: 64, seed: 3 });
  });

  it("asks for JSON matching a schema (the judge's call)", async () => {
    const base = await serve([mockReply.text('{"met": true}')]);
    const schema = {
      type: "object",
      properties: { met: { type: "boolean" } },
      required: ["met"],
      additionalProperties: false,
    };
    const response = await model("openai:gpt-4o", base).generate({ ...HELLO, jsonSchema: schema });
    expect(response.text).toBe('{"met": true}');
    expect(base.requests[0]!.body).toMatchObject({
      response_format: { type: "json_schema", json_schema: { schema } },
    });
  });

  it("has no price for a model served by a local OpenAI-compatible server", async () => {
    const base = await serve([mockReply.text("hi")]);
    const response = await model("openai-compatible:gpt-4o", base).generate(HELLO);
    expect(response.cost).toBeNull();
  });
});
