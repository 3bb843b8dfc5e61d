import { SpanStatusCode } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { startConversationTrace } from "./conversation-trace.js";
import { spanTextFilter } from "./span-text.js";
import { TraceScopes } from "./trace-scope.js";

function tracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer("test"), exporter };
}

describe("startConversationTrace", () => {
  it("a customer's failing tool call is an error span saying who called; long results are cut; a remote agent's URL loses its credentials", () => {
    const { tracer: t, exporter } = tracer();
    const trace = startConversationTrace(t, new TraceScopes(), spanTextFilter(["sk-live-0123456789"]), {
      domain: "telecom",
      taskId: "t1",
      trial: 2,
      seed: 7,
      agentLlm: "a2a:https://team:hunter22@agents.example/support?token=abc123",
      userLlm: "openai:gpt-4.1",
    });
    const call = {
      id: "c1",
      name: "toggle_airplane_mode",
      arguments: { on: true },
      requestor: "user" as const,
    };
    trace.onEvent({ type: "tool-call-start", call });
    trace.onEvent({
      type: "tool-call-end",
      call,
      result: {
        id: "c1",
        role: "tool",
        content: "Error: no such device sk-live-0123456789",
        requestor: "user",
        error: true,
      },
      latencyMs: 1,
    });
    const big = { id: "c2", name: "get_details", arguments: {}, requestor: "assistant" as const };
    trace.onEvent({ type: "tool-call-start", call: big });
    trace.onEvent({
      type: "tool-call-end",
      call: big,
      result: { id: "c2", role: "tool", content: "x".repeat(5000), requestor: "assistant", error: false },
      latencyMs: 1,
    });
    // A call still running when the conversation ends is closed with it.
    trace.onEvent({ type: "tool-call-start", call: { ...big, id: "c3" } });
    trace.end({ error: new Error("the simulation was interrupted") });

    const spans = exporter.getFinishedSpans();
    const root = spans.find((s) => s.name === "conversation telecom")!;
    expect(root.attributes["passk.agent.llm"]).toBe(
      "a2a:https://[redacted]:[redacted]@agents.example/support?token=[redacted]",
    );
    expect(root.status.code).toBe(SpanStatusCode.ERROR);
    const [failed, long, unfinished] = spans.filter((s) => s.name.startsWith("execute_tool"));
    expect(failed!.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(failed!.attributes).toMatchObject({
      "passk.tool.caller": "customer",
      "gen_ai.tool.call.result": "Error: no such device [redacted]",
      "error.type": "tool_error",
    });
    expect(failed!.status.code).toBe(SpanStatusCode.ERROR);
    expect(long!.attributes["passk.tool.caller"]).toBe("agent");
    expect(long!.attributes["gen_ai.tool.call.result"]).toBe(`${"x".repeat(4096)}… [904 more characters]`);
    expect(long!.status.code).toBe(SpanStatusCode.UNSET);
    expect(unfinished!.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: "the conversation ended during the call",
    });
  });
});
