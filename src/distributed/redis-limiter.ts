import { RateLimiterRedis } from "rate-limiter-flexible";
import type { LimiterFactory } from "../llm/call-limits.js";
import { RespClient, type RespReply } from "./resp-client.js";
import type { RedisAddress } from "./redis-url.js";

type Arg = string | number;

/**
 * The few commands rate-limiter-flexible's `RateLimiterRedis` sends, in the shape of the `redis` package
 * (`useRedisPackage`): `eval`, `multi()…exec()`, `del`. Reconnects on the next command after Redis went
 * away, so that a restarted Redis only delays calls.
 */
class LimiterStoreClient {
  readonly #client: RespClient;
  #connecting: Promise<void> | undefined;

  constructor(address: RedisAddress) {
    this.#client = new RespClient(address, { connectTimeoutMs: 3000 });
  }

  async #ready(): Promise<void> {
    if (this.#client.connected) return;
    this.#connecting ??= this.#client.connect().finally(() => (this.#connecting = undefined));
    await this.#connecting;
  }

  async #send(command: string, args: readonly Arg[]): Promise<RespReply> {
    await this.#ready();
    return this.#client.send(command, args);
  }

  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<RespReply> {
    return this.#send("EVAL", [script, options.keys.length, ...options.keys, ...options.arguments]);
  }

  del(key: string): Promise<RespReply> {
    return this.#send("DEL", [key]);
  }

  multi() {
    const commands: Array<[string, Arg[]]> = [];
    const chain = {
      set: (key: string, value: Arg, options?: { EX?: number }) => {
        commands.push(["SET", options?.EX ? [key, value, "EX", options.EX] : [key, value]]);
        return chain;
      },
      get: (key: string) => {
        commands.push(["GET", [key]]);
        return chain;
      },
      incrBy: (key: string, by: number) => {
        commands.push(["INCRBY", [key, by]]);
        return chain;
      },
      pTTL: (key: string) => {
        commands.push(["PTTL", [key]]);
        return chain;
      },
      // MULTI … EXEC written in one go: another caller's commands cannot land inside the transaction.
      exec: async (): Promise<RespReply[]> => {
        await this.#ready();
        const sent = [
          this.#client.send("MULTI", []),
          ...commands.map(([command, args]) => this.#client.send(command, args)),
        ];
        const replies = await this.#client.send("EXEC", []);
        await Promise.all(sent);
        return Array.isArray(replies) ? replies : [];
      },
    };
    return chain;
  }

  close(): void {
    this.#client.close();
  }
}

/** Limiters kept in Redis, shared by every worker of a run (rate-limiter-flexible's `RateLimiterRedis`). */
export function redisLimiterFactory(address: RedisAddress): { factory: LimiterFactory; close(): void } {
  const client = new LimiterStoreClient(address);
  return {
    factory: (options) => new RateLimiterRedis({ storeClient: client, useRedisPackage: true, ...options }),
    close: () => client.close(),
  };
}
