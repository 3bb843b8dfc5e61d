import { ConfigError } from "../core/errors.js";
import { redactUrl } from "../llm/redact.js";

/** Where Redis or Valkey listens, from a `redis://` / `rediss://` URL. */
export interface RedisAddress {
  host: string;
  port: number;
  username?: string;
  password?: string;
  /** Database number (`redis://host:port/2`). */
  db: number;
  tls: boolean;
}

/**
 * Parse `--queue redis://[user:password@]HOST[:PORT][/DB]` (`rediss://` for TLS). The message of a bad
 * URL shows it without its password.
 * @example parseRedisUrl("redis://127.0.0.1:6379") // { host: "127.0.0.1", port: 6379, db: 0, tls: false }
 */
export function parseRedisUrl(text: string, flag = "--queue"): RedisAddress {
  const shown = redactUrl(text);
  const fix = "write redis://HOST:PORT (rediss:// for TLS), e.g. redis://127.0.0.1:6379";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${flag} "${shown}" is not a URL; ${fix}`);
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:")
    throw new ConfigError(`${flag} "${shown}" is not a Redis URL (${url.protocol}//); ${fix}`);
  if (!url.hostname) throw new ConfigError(`${flag} "${shown}" names no host; ${fix}`);
  const port = url.port === "" ? 6379 : Number(url.port);
  const dbText = url.pathname.replace(/^\//, "");
  const db = dbText === "" ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0 || db > 15)
    throw new ConfigError(`${flag} "${shown}": database "${dbText}" is not a number from 0 to 15; ${fix}`);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    db,
    tls: url.protocol === "rediss:",
  };
}

/** The address for messages: never the password. */
export function describeRedisAddress(address: RedisAddress): string {
  return `${address.tls ? "rediss" : "redis"}://${address.host}:${address.port}${address.db ? `/${address.db}` : ""}`;
}
