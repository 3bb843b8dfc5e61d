import { parseJsonKeepingPyFloats } from "../python/py-float.js";
import { PasskError } from "./errors.js";

/**
 * The provider-neutral view of one model call that agents, user simulators and the judge make. The
 * `llm/` layer implements it over the Vercel AI SDK; tests use a mock HTTP server behind it.
 */
export type LlmMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls?: LlmToolCall[] }
  | { role: "tool"; toolCallId: string; toolName: string; content: string; isError?: boolean };

/** A tool as the model sees it: name, description and JSON Schema of its arguments. */
export interface LlmToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface LlmToolCall {
  id: string;
  name: string;
  /** Parsed arguments; absent when the model's argument text is not a JSON object. */
  arguments?: Record<string, unknown>;
  /** The model's raw argument text, kept so malformed calls can be reported back to it. */
  argumentsText: string;
}

export interface LlmUsage {
  /** Every prompt token, those read from or written to the provider's prompt cache included. */
  promptTokens: number;
  completionTokens: number;
  /** Of the prompt tokens, those read from the provider's prompt cache; absent when none were. */
  cacheReadTokens?: number;
  /** Of the prompt tokens, those written to the prompt cache (Anthropic, Bedrock); absent when none were. */
  cacheWriteTokens?: number;
}

export interface LlmRequest {
  system: string;
  messages: readonly LlmMessage[];
  tools?: readonly LlmToolSpec[];
  /** Provider call settings (temperature, max tokens, seed…), as given by `--*-llm-args`. */
  params?: Readonly<Record<string, unknown>>;
  /** Ask for a JSON object matching this schema (used by the judge). */
  jsonSchema?: Record<string, unknown>;
  /**
   * Mixed into the response-cache key only, never sent. Pass the trial (or its seed) so that the k trials
   * of a pass^k run do not all replay one cached conversation.
   */
  cacheSalt?: string;
  signal?: AbortSignal;
}

export interface LlmResponse {
  text: string | null;
  toolCalls: LlmToolCall[];
  usage: LlmUsage;
  /** USD; null when the model's price is unknown (never silently 0). */
  cost: number | null;
  /** Provider response id/model etc., for raw_data. */
  raw?: Record<string, unknown>;
  /** True when the reply came from the response cache (`--cache`) instead of the provider. */
  cached?: boolean;
}

/** A model that can be called: one `<provider>:<model>` spec with its settings. */
export interface LanguageModel {
  /** `<provider>:<model>`, e.g. `openai:gpt-4.1`. Never contains secrets. */
  readonly spec: string;
  /** Whether its calls can be priced (the price table or `--prices` knows the model); absent: unknown. */
  readonly priced?: boolean;
  generate(request: LlmRequest): Promise<LlmResponse>;
}

/**
 * A provider fault that survived every retry (429, 5xx, timeout, connection reset). It is not the
 * agent's fault: the conversation ends with termination reason `infrastructure_error`, is left out of
 * scores and can be re-run.
 */
export class InfrastructureError extends PasskError {
  constructor(
    message: string,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super("infrastructure_error", message, options);
    this.name = "InfrastructureError";
  }
}

/**
 * A provider reported token usage no call can have (a negative, fractional or non-finite count): the
 * provider's fault, not the price table's. The call's cost cannot be counted, so the conversation ends as
 * an infrastructure error (left out of scores), and a run under `--max-cost` starts no new conversation.
 */
export class ProviderUsageError extends InfrastructureError {
  constructor(message: string) {
    super(message, 1);
    this.name = "ProviderUsageError";
  }
}

/**
 * Under the τ² protocol, model output the reference cannot use — tool-call arguments that are not JSON,
 * an empty message. The reference raises and runs the whole simulation again; passk ends it as an
 * infrastructure error (left out of scores, run again), never as a failure of the agent or customer.
 */
export class UnusableModelOutputError extends InfrastructureError {
  constructor(message: string) {
    super(message, 1);
    this.name = "UnusableModelOutputError";
  }
}

/** A tool call's argument text parsed as passk reads it: a JSON object, or undefined (bad JSON, an array, a string). */
export function parseToolCallArguments(text: string): Record<string, unknown> | undefined {
  try {
    // `2.0` stays a Python float: tools print it so (telecom's "2.0 GB"), and results record it so.
    const value: unknown = parseJsonKeepingPyFloats(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
