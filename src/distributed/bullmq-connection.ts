import type { ConnectionOptions } from "bullmq";
import { ConfigError } from "../core/errors.js";
import { openRedisClient, redisOptions } from "./redis-client.js";
import { describeRedisAddress, type RedisAddress } from "./redis-url.js";

/**
 * BullMQ connection options for an address (each Queue, Worker and QueueEvents opens its own ioredis
 * connection with them). Commands wait through a reconnection instead of failing after a few retries,
 * as BullMQ's blocking connections require. `onReconnect` hears of each attempt to reconnect.
 */
export function bullmqConnection(address: RedisAddress, onReconnect?: () => void): ConnectionOptions {
  const { host, port, username, password, db, tls } = redisOptions(address);
  return {
    host,
    port,
    db,
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
    ...(tls !== undefined ? { tls } : {}),
    maxRetriesPerRequest: null,
    // ioredis's own back-off (50 ms more per attempt, at most 2 s), telling the caller it reconnects.
    retryStrategy: (times: number) => {
      onReconnect?.();
      return Math.min(times * 50, 2000);
    },
  };
}

/**
 * Check that Redis or Valkey answers at the address before anything is queued, so that a wrong URL or
 * a server that is not running is one clear sentence rather than a hang.
 */
export async function checkRedisReachable(address: RedisAddress, flag = "--queue"): Promise<void> {
  const client = openRedisClient(address, {
    connectTimeout: 3000,
    commandTimeout: 3000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // connect() below fails with "Connection is closed"; the reason (ECONNREFUSED…) comes as an error event.
  let cause: Error | undefined;
  client.on("error", (error: Error) => (cause ??= error));
  const shown = describeRedisAddress(address);
  try {
    await client.connect();
    const answer = await client.ping();
    if (answer !== "PONG") throw new Error(`it answered ${JSON.stringify(answer)} to PING`);
  } catch (error) {
    const reason = (cause ?? (error instanceof Error ? error : new Error(String(error)))).message;
    throw new ConfigError(
      `${flag} ${shown}: cannot reach Redis or Valkey there (${reason}); start redis-server or valkey-server on that host and port, or fix the URL`,
    );
  } finally {
    client.disconnect();
  }
}

/**
 * When Redis answers but what it holds under passk's queue keys cannot be read (keys of the wrong
 * type, job data that is not JSON — another program's keys, or damaged ones): the sentence to show,
 * else undefined. Waiting would not help, unlike an unreachable Redis.
 */
export function damagedQueueSentence(address: RedisAddress, error: Error): string | undefined {
  if (!(error instanceof SyntaxError) && !/WRONGTYPE|not valid JSON|Unexpected token/.test(error.message))
    return undefined;
  const other = describeRedisAddress({ ...address, db: address.db === 15 ? 14 : address.db + 1 });
  return `Redis at ${describeRedisAddress(address)} answers, but its passk queue keys (bull:passk-conversations:*) are damaged or another program's (${error.message.slice(0, 200)}); give passk a database of its own (e.g. ${other}) or delete those keys, then resume the run`;
}
