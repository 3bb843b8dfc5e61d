import { z } from "zod";
import type { LlmMessage, LlmToolCall } from "../core/llm.js";
import { parseToolCallArguments } from "../core/llm.js";
import {
  requestAssistantTurn,
  requestToolCall,
  retryAfterSeconds,
  type MockLlmCodec,
  type SseEvent,
} from "./mock-llm-codec.js";
import { argumentsText, chunks, type MockMessageReply, type MockUsage } from "./mock-llm-reply.js";

const PartSchema = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  functionCall: z.looseObject({ id: z.string().optional(), name: z.string(), args: z.unknown() }).optional(),
  functionResponse: z
    .looseObject({ id: z.string().optional(), name: z.string(), response: z.unknown() })
    .optional(),
});

const GoogleRequestSchema = z.looseObject({
  contents: z.array(z.looseObject({ role: z.enum(["user", "model"]), parts: z.array(PartSchema) })),
  systemInstruction: z.looseObject({ parts: z.array(PartSchema) }).optional(),
  tools: z
    .array(
      z.looseObject({
        functionDeclarations: z
          .array(
            z.looseObject({
              name: z.string(),
              description: z.string().optional(),
              parameters: z.record(z.string(), z.unknown()).optional(),
            }),
          )
          .optional(),
      }),
    )
    .optional(),
});

/** What a function response carries back: the SDK wraps a tool's text as `{name, content}`. */
function responseText(response: unknown): string {
  const content = (response as { content?: unknown } | null)?.content;
  if (typeof content === "string") return content;
  return JSON.stringify(content ?? response ?? null);
}

/** Gemini's status names for HTTP statuses, as its error JSON carries them. */
function googleStatus(status: number): string {
  switch (status) {
    case 400:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 503:
      return "UNAVAILABLE";
    case 504:
      return "DEADLINE_EXCEEDED";
    default:
      return status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
  }
}

function usageMetadata(usage: MockUsage) {
  return {
    promptTokenCount: usage.promptTokens,
    candidatesTokenCount: usage.completionTokens,
    totalTokenCount: usage.promptTokens + usage.completionTokens,
    ...(usage.cachedTokens !== undefined ? { cachedContentTokenCount: usage.cachedTokens } : {}),
  };
}

/** A scripted call's `args`: the JSON object, or the text itself when it is not one (Gemini always sends an object). */
function functionCallPart(call: NonNullable<MockMessageReply["toolCalls"]>[number], id: string) {
  const text = argumentsText(call);
  return { functionCall: { id, name: call.name, args: parseToolCallArguments(text) ?? text } };
}

/**
 * Gemini's generateContent (`POST …/models/{model}:generateContent`, and `:streamGenerateContent?alt=sse`
 * for a stream), which Vertex AI speaks too under its own base path. The model and the streaming choice
 * come from the path. Function calls carry ids (`google_call_<call>_<n>`, or the scripted id); a function
 * response is paired with its call by id, else with the earliest open call of its name.
 */
export const googleCodec: MockLlmCodec = {
  protocol: "google",

  parseRequest(body, route) {
    const request = GoogleRequestSchema.parse(body);
    const messages: LlmMessage[] = [];
    const open: { id: string; name: string }[] = [];
    let generated = 0;
    for (const content of request.contents) {
      if (content.role === "model") {
        const texts: string[] = [];
        const toolCalls: LlmToolCall[] = [];
        for (const part of content.parts) {
          if (part.text !== undefined && part.thought !== true) texts.push(part.text);
          if (part.functionCall) {
            const id = part.functionCall.id ?? `google_request_call_${generated++}`;
            toolCalls.push(requestToolCall(id, part.functionCall.name, part.functionCall.args));
            open.push({ id, name: part.functionCall.name });
          }
        }
        messages.push(requestAssistantTurn(texts, toolCalls));
        continue;
      }
      const texts: string[] = [];
      for (const part of content.parts) {
        if (part.text !== undefined) texts.push(part.text);
        if (part.functionResponse) {
          const { id, name } = part.functionResponse;
          const at = open.findIndex((call) => (id !== undefined ? call.id === id : call.name === name));
          const call = at >= 0 ? open.splice(at, 1)[0] : undefined;
          messages.push({
            role: "tool",
            toolCallId: call?.id ?? id ?? "",
            toolName: name,
            content: responseText(part.functionResponse.response),
          });
        }
      }
      if (texts.length > 0) messages.push({ role: "user", content: texts.join("") });
    }
    return {
      model: route.pathModel ?? "",
      stream: route.pathStream === true,
      system: (request.systemInstruction?.parts ?? []).map((part) => part.text ?? "").join(""),
      messages,
      tools: (request.tools ?? []).flatMap((tool) =>
        (tool.functionDeclarations ?? []).map((declaration) => ({
          name: declaration.name,
          description: declaration.description ?? "",
          parameters: declaration.parameters ?? {},
        })),
      ),
    };
  },

  renderMessage(reply, { index, model, usage }) {
    const parts: unknown[] = [];
    if (reply.text !== undefined && reply.text !== "") parts.push({ text: reply.text });
    (reply.toolCalls ?? []).forEach((call, position) =>
      parts.push(functionCallPart(call, call.id ?? `google_call_${index}_${position}`)),
    );
    return {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata: usageMetadata(usage),
      modelVersion: model,
      responseId: `google-mock-${index}`,
    };
  },

  renderStream(reply, { index, model, usage, chunkSize }) {
    const events: SseEvent[] = [];
    const push = (parts: unknown[], last: boolean) =>
      events.push({
        data: JSON.stringify({
          candidates: [
            { content: { role: "model", parts }, index: 0, ...(last ? { finishReason: "STOP" } : {}) },
          ],
          ...(last ? { usageMetadata: usageMetadata(usage) } : {}),
          modelVersion: model,
          responseId: `google-mock-${index}`,
        }),
      });
    const pieces = chunks(reply.text ?? "", chunkSize);
    const calls = reply.toolCalls ?? [];
    pieces.forEach((piece, at) => push([{ text: piece }], at === pieces.length - 1 && calls.length === 0));
    // Gemini sends each function call whole, in one chunk.
    calls.forEach((call, position) =>
      push(
        [functionCallPart(call, call.id ?? `google_call_${index}_${position}`)],
        position === calls.length - 1,
      ),
    );
    if (pieces.length === 0 && calls.length === 0) push([{ text: "" }], true);
    return events;
  },

  renderError(status, message, headers) {
    const seconds = retryAfterSeconds(headers);
    return {
      error: {
        code: status,
        message,
        status: googleStatus(status),
        // Gemini says how long to wait in a RetryInfo detail rather than a header.
        ...(status === 429 && seconds !== undefined
          ? { details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${seconds}s` }] }
          : {}),
      },
    };
  },
};
