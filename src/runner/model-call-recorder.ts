import { AsyncLocalStorage } from "node:async_hooks";
import type { LanguageModel, LlmMessage, LlmRequest, LlmResponse } from "../core/llm.js";
import type {
  ModelCall,
  ModelCallPrompt,
  ModelCallSink,
  SentMessage,
  SimulationModelCalls,
} from "../core/model-calls.js";
import type { ModelCallObserver, ObservedModel } from "../llm/model-call-observer.js";
import { redactKnownSecrets, redactSecrets } from "../llm/redact.js";
import type { RetryEvent } from "../llm/retry.js";
import type { SimulationEvent } from "../orchestrator/events.js";
import type { RunJob } from "./execute-run.js";

/** A call in progress: what is known before the answer, and the attempts that failed so far. */
interface OpenCall {
  call: ModelCall;
}

/** What the previous call of one participant (role, model, prompt) was sent, to delta-code the next. */
interface LastSent {
  index: number;
  messages: readonly LlmMessage[];
  texts: string[];
}

/**
 * The calls of one conversation, in the order they were made. Calls made since the last message are
 * the ones that produced the next message; the conversation's events say when that is.
 */
export class ConversationCalls {
  readonly #prompts: ModelCallPrompt[] = [];
  readonly #promptKeys = new Map<string, number>();
  /** The last tools array and system prompt seen, by identity: participants send the same ones each call. */
  #lastPrompt: { system: string; tools: LlmRequest["tools"]; index: number } | undefined;
  readonly #calls: ModelCall[] = [];
  readonly #last = new Map<string, LastSent>();
  /**
   * Calls in progress, in the order they began. A conversation's participants call one at a time, so a
   * retry belongs to the last one (a scope per call would cost every promise of the call its upkeep).
   */
  readonly open: OpenCall[] = [];
  /** Calls not yet tied to a message. */
  #pending: ModelCall[] = [];

  begin(about: ObservedModel, request: LlmRequest): OpenCall {
    const prompt = this.#prompt(request);
    const key = `${about.role}\u0000${about.provider}:${about.model}\u0000${prompt}`;
    const index = this.#calls.length;
    const last = this.#last.get(key);
    const texts: string[] = [];
    let keep = 0;
    // Messages the previous call was sent, unchanged, are not stored again.
    if (last) {
      const shared = Math.min(last.messages.length, request.messages.length);
      while (keep < shared) {
        const sent = request.messages[keep]!;
        if (sent !== last.messages[keep]) {
          const text = JSON.stringify(sent);
          if (text !== last.texts[keep]) break;
          texts.push(text);
        } else texts.push(last.texts[keep]!);
        keep++;
      }
    }
    const added: SentMessage[] = [];
    for (let i = keep; i < request.messages.length; i++) {
      const text = JSON.stringify(request.messages[i]);
      texts.push(text);
      added.push(JSON.parse(text) as SentMessage);
    }
    this.#last.set(key, { index, messages: [...request.messages], texts });
    const call: ModelCall = {
      turn_idx: null,
      role: about.role,
      model: `${about.provider}:${about.model}`,
      prompt,
      messages: { from: last && keep > 0 ? last.index : null, keep: last && keep > 0 ? keep : 0, added },
      params: request.params ? (JSON.parse(JSON.stringify(request.params)) as Record<string, unknown>) : {},
      reply: null,
      usage: null,
      cost: null,
      started_at: new Date().toISOString(),
      latency_ms: 0,
      attempts: 1,
      errors: [],
      error: null,
      cached: false,
    };
    this.#calls.push(call);
    this.#pending.push(call);
    return { call };
  }

  #prompt(request: LlmRequest): number {
    const last = this.#lastPrompt;
    if (last && last.system === request.system && last.tools === request.tools) return last.index;
    const tools = (request.tools ?? []).map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
    }));
    const key = JSON.stringify([request.system, tools]);
    let index = this.#promptKeys.get(key);
    if (index === undefined) {
      index = this.#prompts.length;
      // A copy: what the model was shown, whatever happens to the tools' objects later.
      const [, copied] = JSON.parse(key) as [string, ModelCallPrompt["tools"]];
      this.#prompts.push({ system: request.system, tools: copied });
      this.#promptKeys.set(key, index);
    }
    this.#lastPrompt = { system: request.system, tools: request.tools, index };
    return index;
  }

  /** The conversation's events: a message ties the calls made since the last one to it. */
  onEvent(event: SimulationEvent): void {
    if (event.type !== "message" || this.#pending.length === 0) return;
    const turn = event.message.turn_idx;
    if (typeof turn !== "number") return;
    for (const call of this.#pending) call.turn_idx = turn;
    this.#pending = [];
  }

  /** The record to store: calls still pending (the judge's, one that failed) stay tied to no message. */
  record(): SimulationModelCalls {
    return { version: 1, prompts: this.#prompts, calls: this.#calls };
  }

  get size(): number {
    return this.#calls.length;
  }
}

/** The HTTP status a retry reason starts with (`HTTP 500: …`), if any. */
function statusOf(reason: string): number | null {
  const match = /^HTTP (\d{3})\b/.exec(reason);
  return match ? Number(match[1]) : null;
}

/**
 * Records every model call of each conversation it runs — the request (system prompt, tools,
 * messages, settings), the reply, tokens, latency, attempts and the errors retried — for the explorer's
 * "model call" of each turn. It is a {@link ModelCallObserver} (give it to the models, as tracing's),
 * and conversations run in parallel: each job's calls are found through its own async scope.
 * Secrets never reach a record: error texts are redacted, and the whole record is cleaned of the
 * given secrets by value.
 */
export class ModelCallRecorder implements ModelCallObserver {
  readonly #scopes = new AsyncLocalStorage<{ conversation: ConversationCalls }>();
  readonly #secrets: readonly string[];

  /** `secrets`: every key and token of the environment (`environmentSecrets`). */
  constructor(options: { secrets?: readonly string[] } = {}) {
    this.#secrets = options.secrets ?? [];
  }

  wrap(model: LanguageModel, about: ObservedModel): LanguageModel {
    const scopes = this.#scopes;
    return {
      spec: model.spec,
      get priced() {
        return model.priced;
      },
      async generate(request: LlmRequest): Promise<LlmResponse> {
        const scope = scopes.getStore();
        if (!scope) return model.generate(request);
        const open = scope.conversation.begin(about, request);
        const { call } = open;
        const began = performance.now();
        try {
          scope.conversation.open.push(open);
          const response = await model
            .generate(request)
            .finally(() => scope.conversation.open.splice(scope.conversation.open.indexOf(open), 1));
          call.latency_ms = Math.round(performance.now() - began);
          call.attempts = call.errors.length + 1;
          call.reply = {
            text: response.text,
            tool_calls: response.toolCalls.map((c) => ({
              id: c.id,
              name: c.name,
              arguments: c.argumentsText,
            })),
            finish_reason:
              typeof response.raw?.finish_reason === "string" ? response.raw.finish_reason : null,
            response_id: typeof response.raw?.id === "string" ? response.raw.id : null,
          };
          call.usage = {
            prompt_tokens: response.usage.promptTokens,
            completion_tokens: response.usage.completionTokens,
            ...(response.usage.cacheReadTokens !== undefined
              ? { cache_read_tokens: response.usage.cacheReadTokens }
              : {}),
            ...(response.usage.cacheWriteTokens !== undefined
              ? { cache_write_tokens: response.usage.cacheWriteTokens }
              : {}),
          };
          call.cost = response.cost;
          call.cached = response.cached === true;
          return response;
        } catch (error) {
          call.latency_ms = Math.round(performance.now() - began);
          call.attempts = call.errors.length + 1;
          call.error = redactSecrets(about.redact(error instanceof Error ? error.message : String(error)));
          throw error;
        }
      },
    };
  }

  retried(event: RetryEvent): void {
    const call = this.#scopes.getStore()?.conversation.open.at(-1)?.call;
    if (!call) return;
    call.errors.push({
      attempt: event.attempt,
      status: statusOf(event.reason),
      reason: redactSecrets(event.reason),
      delay_ms: Math.round(event.delayMs),
    });
  }

  /**
   * A run's job whose conversation's calls are recorded and saved to `sink` under the simulation's id
   * once it ends. Losing the record (a store that cannot be written) never costs the result.
   */
  recordRunJob(job: RunJob, sink: ModelCallSink): RunJob {
    return async (context) => {
      const conversation = new ConversationCalls();
      const result = await this.#scopes.run({ conversation }, () =>
        job({
          ...context,
          onSimulationEvent: (event) => {
            conversation.onEvent(event);
            context.onSimulationEvent?.(event);
          },
        }),
      );
      if (conversation.size > 0) {
        try {
          sink.save(context.job.runId, result.id, this.clean(conversation.record()));
        } catch {
          // The calls are a debugging aid: the graded result is what the run must keep.
        }
      }
      return result;
    };
  }

  /** The record with every configured secret taken out by value. */
  clean(record: SimulationModelCalls): SimulationModelCalls {
    if (this.#secrets.length === 0) return record;
    const text = JSON.stringify(record);
    const clean = redactKnownSecrets(text, this.#secrets);
    return clean === text ? record : (JSON.parse(clean) as SimulationModelCalls);
  }
}
