import type { MiddlewareHandler } from "hono";

export interface RateLimitOptions {
  /** Requests allowed per client in each window. */
  max: number;
  windowMs: number;
  /** Who the client is (an IP address). */
  clientKey: (request: Request, context: Parameters<MiddlewareHandler>[0]) => string;
  now: () => Date;
}

/** Forget idle clients once this many are tracked, so memory stays bounded under many addresses. */
const PRUNE_ABOVE = 10_000;

/**
 * Per-client fixed-window rate limit: at most `max` requests per `windowMs`; past that, HTTP 429 with
 * `Retry-After` and a sentence that says how long to wait.
 *
 * @example
 * app.use("/api/conversations/*", rateLimit({ max: 30, windowMs: 60_000, clientKey: () => ip, now: () => new Date() }));
 */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler {
  if (!Number.isInteger(options.max) || options.max < 1)
    throw new RangeError(`rateLimit: max must be a positive integer, got ${options.max}`);
  if (!(options.windowMs > 0))
    throw new RangeError(`rateLimit: windowMs must be positive, got ${options.windowMs}`);
  const windows = new Map<string, { start: number; count: number }>();
  return async (c, next) => {
    const now = options.now().getTime();
    const key = options.clientKey(c.req.raw, c);
    if (windows.size > PRUNE_ABOVE) {
      for (const [k, w] of windows) if (now - w.start >= options.windowMs) windows.delete(k);
    }
    let window = windows.get(key);
    if (!window || now - window.start >= options.windowMs) {
      window = { start: now, count: 0 };
      windows.set(key, window);
    }
    if (window.count >= options.max) {
      const retryAfter = Math.max(1, Math.ceil((window.start + options.windowMs - now) / 1000));
      c.header("Retry-After", String(retryAfter));
      return c.json(
        {
          code: "rate_limited",
          message:
            `Too many requests from your address: at most ${options.max} per ${formatSeconds(options.windowMs)}. ` +
            `Try again in ${retryAfter} s.`,
        },
        429,
      );
    }
    window.count++;
    await next();
  };
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return seconds === 60 ? "minute" : seconds === 3600 ? "hour" : `${seconds} s`;
}
