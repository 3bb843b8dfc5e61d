import { createBunRedisClient, RedisConnection, type ConnectionOptions } from "bullmq";
import { ConfigError } from "../core/errors.js";
import { RespClient } from "./resp-client.js";
import { describeRedisAddress, type RedisAddress } from "./redis-url.js";

interface FactoryOptions {
  host?: string;
  port?: number;
  username?: string;
  password?: string;
  db?: number;
  tls?: object;
}

// BullMQ's default driver (ioredis) is an optional package passk does not install: BullMQ's own adapter
// for Bun's client runs over passk's small wire-protocol connection instead (see resp-client.ts). The
// factory is BullMQ-wide, so it is installed only once passk opens a queue.
const respClientFactory: typeof RedisConnection.clientFactory = (options) => {
  const given = options as FactoryOptions;
  const address: RedisAddress = {
    host: given.host ?? "127.0.0.1",
    port: given.port ?? 6379,
    ...(given.username ? { username: given.username } : {}),
    ...(given.password ? { password: given.password } : {}),
    db: given.db ?? 0,
    tls: given.tls !== undefined,
  };
  return createBunRedisClient(new RespClient(address), { lazyConnect: true });
};

/** BullMQ connection options for an address (each Queue, Worker and QueueEvents opens its own). */
export function bullmqConnection(address: RedisAddress): ConnectionOptions {
  RedisConnection.clientFactory = respClientFactory;
  return {
    host: address.host,
    port: address.port,
    ...(address.username ? { username: address.username } : {}),
    ...(address.password ? { password: address.password } : {}),
    db: address.db,
    ...(address.tls ? { tls: {} } : {}),
  };
}

/**
 * Check that Redis or Valkey answers at the address before anything is queued, so that a wrong URL or
 * a server that is not running is one clear sentence rather than a hang.
 */
export async function checkRedisReachable(address: RedisAddress, flag = "--queue"): Promise<void> {
  const client = new RespClient(address, { connectTimeoutMs: 3000 });
  const shown = describeRedisAddress(address);
  try {
    await client.connect();
    const answer = await Promise.race([
      client.send("PING"),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("no answer to PING within 3 s")), 3000).unref(),
      ),
    ]);
    if (answer !== "PONG") throw new Error(`it answered ${JSON.stringify(answer)} to PING`);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `${flag} ${shown}: cannot reach Redis or Valkey there (${reason}); start redis-server or valkey-server on that host and port, or fix the URL`,
    );
  } finally {
    client.close();
  }
}
