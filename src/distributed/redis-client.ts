import { Redis, type RedisOptions } from "ioredis";
import type { RedisAddress } from "./redis-url.js";

/** ioredis's options for an address (BullMQ's own client library; it opens its connections with them). */
export function redisOptions(address: RedisAddress): RedisOptions {
  return {
    host: address.host,
    port: address.port,
    ...(address.username ? { username: address.username } : {}),
    ...(address.password ? { password: address.password } : {}),
    db: address.db,
    ...(address.tls ? { tls: {} } : {}),
  };
}

/** A client of its own for an address: connects on first use and reconnects after Redis went away. */
export function openRedisClient(address: RedisAddress, options: RedisOptions = {}): Redis {
  return new Redis({ ...redisOptions(address), lazyConnect: true, ...options });
}
