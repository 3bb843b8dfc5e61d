import { RateLimiterRedis } from "rate-limiter-flexible";
import type { LimiterFactory } from "../llm/call-limits.js";
import { openRedisClient } from "./redis-client.js";
import type { RedisAddress } from "./redis-url.js";

/**
 * Limiters kept in Redis, shared by every worker of a run (rate-limiter-flexible's `RateLimiterRedis`
 * over an ioredis client). The client reconnects by itself, so a restarted Redis only delays calls.
 */
export function redisLimiterFactory(address: RedisAddress): { factory: LimiterFactory; close(): void } {
  const client = openRedisClient(address, { connectTimeout: 3000 });
  // Connection faults surface on the commands that meet them; the client keeps reconnecting.
  client.on("error", () => undefined);
  return {
    factory: (options) => new RateLimiterRedis({ storeClient: client, ...options }),
    close: () => client.disconnect(),
  };
}
