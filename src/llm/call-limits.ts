import type { RateLimiterAbstract, RateLimiterRes } from "rate-limiter-flexible";
import { z } from "zod";
import { ConfigError } from "../core/errors.js";
import type { LanguageModel, LlmRequest, LlmResponse, LlmUsage } from "../core/llm.js";

/** One limit rule: for a provider (`openai`) or one model spec (`openai:gpt-4.1`). */
export const CallLimitRuleSchema = z.object({
  target: z.string().min(1),
  max_concurrent: z.number().int().min(1).optional(),
  requests_per_minute: z.number().int().min(1).optional(),
  tokens_per_minute: z.number().int().min(1).optional(),
});

/**
 * Limits on model calls shared by every process of a run (through Redis in a distributed run):
 * `--max-concurrent-requests`, `--requests-per-minute`, `--tokens-per-minute`. `window_seconds` is the
 * length of the "minute" (60; shorter only to test the limiter quickly).
 */
export const CallLimitsSchema = z.object({
  window_seconds: z.number().positive().default(60),
  rules: z.array(CallLimitRuleSchema),
});
export type CallLimits = z.infer<typeof CallLimitsSchema>;
type Rule = z.infer<typeof CallLimitRuleSchema>;

const FLAG_FIELD = {
  "--max-concurrent-requests": "max_concurrent",
  "--requests-per-minute": "requests_per_minute",
  "--tokens-per-minute": "tokens_per_minute",
} as const;

/**
 * The limits three repeatable flags describe, each `TARGET=N` with TARGET a provider or a model spec
 * (`--requests-per-minute openai=500 anthropic:claude-sonnet-4=50`); null when none is given.
 */
export function parseCallLimits(
  flags: Partial<Record<keyof typeof FLAG_FIELD, readonly string[] | undefined>>,
  windowSeconds = 60,
): CallLimits | null {
  const rules = new Map<string, Rule>();
  for (const [flag, field] of Object.entries(FLAG_FIELD) as Array<[keyof typeof FLAG_FIELD, keyof Rule]>) {
    for (const text of flags[flag] ?? []) {
      const match = /^(.+)=(\d+)$/.exec(text.trim());
      const value = match ? Number(match[2]) : Number.NaN;
      if (!match || !Number.isSafeInteger(value) || value < 1)
        throw new ConfigError(
          `${flag} "${text}" is not TARGET=N with a whole number N ≥ 1; e.g. ${flag} openai=10 or ${flag} openai:gpt-4.1=5`,
        );
      const target = match[1]!.trim();
      rules.set(target, { ...(rules.get(target) ?? { target }), [field]: value });
    }
  }
  if (rules.size === 0) return null;
  return { window_seconds: windowSeconds, rules: [...rules.values()] };
}

/** The rule that governs a model spec: its own, else its provider's. */
function ruleFor(limits: CallLimits, spec: string): Rule | undefined {
  const provider = spec.split(":")[0];
  return limits.rules.find((r) => r.target === spec) ?? limits.rules.find((r) => r.target === provider);
}

/** Makes a rate-limiter-flexible limiter (in memory, or on Redis for every worker of a run). */
export type LimiterFactory = (options: {
  keyPrefix: string;
  points: number;
  duration: number;
}) => RateLimiterAbstract;

/** A slot for one model call: release it with the call's usage (tokens count against the minute). */
export type CallSlot = (usage?: LlmUsage) => void;

export interface CallLimiter {
  /** Wait until a call of this model may go out. */
  acquire(spec: string, signal?: AbortSignal): Promise<CallSlot>;
  /** The provider asked to slow down: hold every process's calls of this model for this long. */
  backOff(spec: string, ms: number): Promise<void>;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/** rate-limiter-flexible rejects with its result when over the limit, and with an Error when the store fails. */
function overLimit(error: unknown): RateLimiterRes {
  if (error instanceof Error) throw error;
  return error as RateLimiterRes;
}

/**
 * A limiter of model calls over rate-limiter-flexible: concurrent calls are a counter with no expiry
 * (taken before the call, given back after); requests and tokens per minute are fixed windows (a
 * request takes a point before it goes out; its tokens are added after, so the next calls wait once
 * the minute's tokens are spent). `scope` separates runs.
 */
export function createCallLimiter(
  limits: CallLimits,
  newLimiter: LimiterFactory,
  scope: string,
): CallLimiter {
  const windowSeconds = limits.window_seconds;
  const perWindow = (perMinute: number) => Math.max(1, Math.round((perMinute * windowSeconds) / 60));
  const built = new Map<
    string,
    { concurrent?: RateLimiterAbstract; requests?: RateLimiterAbstract; tokens?: RateLimiterAbstract }
  >();
  const limitersOf = (rule: Rule) => {
    let limiters = built.get(rule.target);
    if (!limiters) {
      const prefix = `passk-limits:${scope}:${rule.target}`;
      limiters = {
        ...(rule.max_concurrent
          ? {
              concurrent: newLimiter({
                keyPrefix: `${prefix}:concurrent`,
                points: rule.max_concurrent,
                duration: 0,
              }),
            }
          : {}),
        ...(rule.requests_per_minute
          ? {
              requests: newLimiter({
                keyPrefix: `${prefix}:requests`,
                points: perWindow(rule.requests_per_minute),
                duration: windowSeconds,
              }),
            }
          : {}),
        ...(rule.tokens_per_minute
          ? {
              tokens: newLimiter({
                keyPrefix: `${prefix}:tokens`,
                points: perWindow(rule.tokens_per_minute),
                duration: windowSeconds,
              }),
            }
          : {}),
      };
      built.set(rule.target, limiters);
    }
    return limiters;
  };
  const KEY = "calls";

  return {
    async acquire(spec, signal) {
      const rule = ruleFor(limits, spec);
      if (!rule) return () => undefined;
      const { concurrent, requests, tokens } = limitersOf(rule);
      if (concurrent) {
        for (;;) {
          try {
            await concurrent.consume(KEY, 1);
            break;
          } catch (error) {
            overLimit(error);
            // An over-limit consume still counted: give it back, then wait for a call to end.
            await concurrent.reward(KEY, 1);
            await sleep(15 + Math.random() * 10, signal);
          }
        }
      }
      try {
        if (tokens) {
          for (;;) {
            const state = await tokens.get(KEY);
            if (!state || state.consumedPoints < tokens.points) break;
            await sleep(Math.max(10, state.msBeforeNext), signal);
          }
        }
        if (requests) {
          for (;;) {
            try {
              await requests.consume(KEY, 1);
              break;
            } catch (error) {
              await sleep(Math.max(10, overLimit(error).msBeforeNext), signal);
            }
          }
        }
      } catch (error) {
        if (concurrent) await concurrent.reward(KEY, 1);
        throw error;
      }
      let released = false;
      return (usage) => {
        if (released) return;
        released = true;
        if (concurrent) void concurrent.reward(KEY, 1).catch(() => undefined);
        const used = usage ? usage.promptTokens + usage.completionTokens : 0;
        if (tokens && used > 0) void tokens.penalty(KEY, used).catch(() => undefined);
      };
    },
    async backOff(spec, ms) {
      const rule = ruleFor(limits, spec);
      const requests = rule ? limitersOf(rule).requests : undefined;
      if (requests && ms >= 1000) await requests.block(KEY, Math.ceil(ms / 1000)).catch(() => undefined);
    },
  };
}

/**
 * A model whose calls wait for the limiter: each attempt takes a slot (put it inside `withRetry`, so
 * that retries wait too) and gives it back with its usage. A rate-limit answer (429) holds every
 * process's calls of the model for as long as the provider asked (`retryAfterMs`), and `withRetry`
 * then waits as it always does.
 */
export function withCallLimits(
  model: LanguageModel,
  limiter: CallLimiter,
  rateLimited: (error: unknown) => { retryAfterMs?: number } | undefined,
): LanguageModel {
  return {
    spec: model.spec,
    get priced() {
      return model.priced;
    },
    async generate(request: LlmRequest): Promise<LlmResponse> {
      const release = await limiter.acquire(model.spec, request.signal);
      try {
        const response = await model.generate(request);
        release(response.usage);
        return response;
      } catch (error) {
        release();
        const limited = rateLimited(error);
        if (limited) await limiter.backOff(model.spec, limited.retryAfterMs ?? 1000);
        throw error;
      }
    },
  };
}
