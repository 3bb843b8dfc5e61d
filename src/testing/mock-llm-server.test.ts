import { afterEach, describe, expect, it } from "vitest";
import { mockReply, startMockLlmServer, type MockLlmScript, type MockLlmServer } from "./index.js";

let server: MockLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(script: MockLlmScript, options: { delayMs?: number; recordRequests?: boolean } = {}) {
  server = await startMockLlmServer({ script, streamChunkSize: 4, ...options });
  return server;
}

const chat = (base: MockLlmServer, body: Record<string, unknown>, signal?: AbortSignal) =>
  fetch(`${base.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer test" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "Hi" }], ...body }),
    ...(signal ? { signal } : {}),
  });

/** The `data:` payloads of an SSE body, and the `event:` names. */
function parseSse(text: string): { events: string[]; data: string[] } {
  const blocks = text.split("\n\n").filter((block) => block !== "");
  return {
    events: blocks.flatMap((block) =>
      block
        .split("\n")
        .filter((line) => line.startsWith("event: "))
        .map((line) => line.slice(7)),
    ),
    data: blocks.flatMap((block) =>
      block
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6)),
    ),
  };
}

describe("mock LLM server", () => {
  it("binds 127.0.0.1 on a free port and answers Chat Completions in JSON", async () => {
    const base = await serve([mockReply.text("Hello", { usage: { promptTokens: 3, completionTokens: 1 } })]);
    expect(base.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await chat(base, {});
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      object: "chat.completion",
      model: "m",
      choices: [{ message: { role: "assistant", content: "Hello" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    });
    expect(base.requests[0]).toMatchObject({
      index: 0,
      protocol: "openai",
      stream: false,
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(base.requests[0]!.headers.authorization).toBe("Bearer test");
  });

  it("streams Chat Completions chunks whose pieces reassemble the reply, malformed arguments verbatim", async () => {
    const base = await serve([
      mockReply.toolCalls([{ id: "c1", name: "lookup", arguments: '{"id": 1' }], { text: "Checking" }),
    ]);
    const response = await chat(base, { stream: true });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const { data } = parseSse(await response.text());
    expect(data.at(-1)).toBe("[DONE]");
    const chunks = data.slice(0, -1).map(
      (line) =>
        JSON.parse(line) as {
          choices: { delta: Record<string, unknown>; finish_reason: string | null }[];
          usage?: unknown;
        },
    );
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
    const args = chunks
      .flatMap(
        (chunk) =>
          (chunk.choices[0]?.delta.tool_calls as { function: { arguments?: string } }[] | undefined) ?? [],
      )
      .map((call) => call.function.arguments ?? "")
      .join("");
    expect(text).toBe("Checking");
    expect(args).toBe('{"id": 1');
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === "tool_calls")).toBe(true);
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: expect.any(Number) });
  });

  it("streams Anthropic events in the Messages order", async () => {
    const base = await serve([mockReply.toolCall("lookup", { id: 1 }, { text: "Hi" })]);
    const response = await fetch(`${base.baseUrl}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "claude",
        max_tokens: 10,
        stream: true,
        messages: [{ role: "user", content: "Hi" }],
      }),
    });
    const { events } = parseSse(await response.text());
    expect(events).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
  });

  it("plays errors with their status and headers, and says when the script runs out", async () => {
    const base = await serve([mockReply.error(429, { retryAfterSeconds: 2, message: "slow down" })]);
    const limited = await chat(base, {});
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
    expect(await limited.json()).toMatchObject({ error: { message: "slow down" } });
    const extra = await chat(base, {});
    expect(extra.status).toBe(400);
    expect(await extra.json()).toMatchObject({
      error: { message: "mock LLM server: the script has 1 replies but call #2 arrived" },
    });
    expect(base.requests).toHaveLength(2);
  });

  it("lets a function script read the conversation, and setScript replace the script", async () => {
    const base = await serve((request) =>
      mockReply.text(`you said ${JSON.stringify(request.messages.at(-1))}`),
    );
    const reply = (await (await chat(base, {})).json()) as { choices: { message: { content: string } }[] };
    expect(reply.choices[0]!.message.content).toBe('you said {"role":"user","content":"Hi"}');
    base.setScript([mockReply.text("from the new script")]);
    const next = (await (await chat(base, {})).json()) as { choices: { message: { content: string } }[] };
    expect(next.choices[0]!.message.content).toBe("from the new script");
  });

  it("keeps no requests when recordRequests is false, and still numbers the calls", async () => {
    const seen: number[] = [];
    const base = await serve(
      (request) => {
        seen.push(request.index);
        return mockReply.text("ok");
      },
      { recordRequests: false },
    );
    await chat(base, {});
    const second = (await (await chat(base, {})).json()) as { id: string };
    expect(second.id).toBe("chatcmpl-mock-1");
    expect(seen).toEqual([0, 1]);
    expect(base.requests).toHaveLength(0);
  });

  it("adds latency, resets connections and hangs until the client gives up", async () => {
    const base = await serve([mockReply.text("late"), mockReply.reset(), mockReply.hang()], { delayMs: 120 });
    const started = Date.now();
    expect((await chat(base, {})).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
    await expect(chat(base, {})).rejects.toThrow(/fetch failed/);
    await expect(chat(base, {}, AbortSignal.timeout(100))).rejects.toThrow(/aborted|timeout/i);
    expect(base.requests).toHaveLength(3);
  });

  it("answers 404 on unknown routes and 400 on unreadable bodies", async () => {
    const base = await serve([]);
    expect((await fetch(`${base.url}/v1/completions`, { method: "POST", body: "{}" })).status).toBe(404);
    const bad = await fetch(`${base.baseUrl}/chat/completions`, { method: "POST", body: '{"messages": 3}' });
    expect(bad.status).toBe(400);
    expect(base.requests).toHaveLength(0);
  });
});
