import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import type { RedisAddress } from "./redis-url.js";

/** A reply of the Redis protocol (RESP2): error replies inside arrays (EXEC) are `Error` values. */
export type RespReply = string | number | null | Error | RespReply[];

/** An error reply of the server (`NOSCRIPT …`, `WRONGTYPE …`). */
export class RedisReplyError extends Error {
  override name = "RedisReplyError";
}

const CRLF = Buffer.from("\r\n");

/** One command in the protocol's wire form. */
function encodeCommand(command: string, args: ReadonlyArray<string | number | Buffer>): Buffer {
  const parts: Buffer[] = [
    Buffer.from(`*${args.length + 1}\r\n$${Buffer.byteLength(command)}\r\n${command}\r\n`),
  ];
  for (const arg of args) {
    const bytes = Buffer.isBuffer(arg) ? arg : Buffer.from(String(arg));
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, CRLF);
  }
  return Buffer.concat(parts);
}

/** Parse one reply at `offset`; undefined while it is incomplete. */
function parseReply(buffer: Buffer, offset: number): { reply: RespReply; next: number } | undefined {
  const lineEnd = buffer.indexOf(CRLF, offset);
  if (lineEnd < 0) return undefined;
  const type = String.fromCharCode(buffer[offset]!);
  const line = buffer.toString("utf8", offset + 1, lineEnd);
  const after = lineEnd + 2;
  switch (type) {
    case "+":
      return { reply: line, next: after };
    case "-":
      return { reply: new RedisReplyError(line), next: after };
    case ":":
      return { reply: Number(line), next: after };
    case "$": {
      const length = Number(line);
      if (length < 0) return { reply: null, next: after };
      if (buffer.length < after + length + 2) return undefined;
      return { reply: buffer.toString("utf8", after, after + length), next: after + length + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { reply: null, next: after };
      const items: RespReply[] = [];
      let next = after;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, next);
        if (!item) return undefined;
        items.push(item.reply);
        next = item.next;
      }
      return { reply: items, next };
    }
    default:
      throw new Error(
        `unexpected reply type ${JSON.stringify(type)} from the server: is it Redis or Valkey?`,
      );
  }
}

/**
 * A connection to Redis or Valkey speaking the wire protocol (RESP2), with the shape of Bun's built-in
 * `RedisClient` (`send`, `connected`, `onconnect`, `onclose`, `duplicate`), which BullMQ drives through
 * its own adapter (`createBunRedisClient`): BullMQ brings the commands, scripts, reconnection and
 * blocking connections; this only carries bytes. Replies come back in request order, so commands
 * pipeline freely.
 */
export class RespClient {
  connected = false;
  onconnect: (() => void) | undefined;
  onclose: ((error?: Error) => void) | undefined;
  onerror: ((error: Error) => void) | undefined;
  /** Round trips sent so far (for the benchmark's Redis figures). */
  static commandsSent = 0;
  readonly address: RedisAddress;
  readonly #connectTimeoutMs: number;
  #socket: Socket | undefined;
  #pending: Array<{ resolve: (reply: RespReply) => void; reject: (error: Error) => void }> = [];
  #buffer: Buffer = Buffer.alloc(0);
  #lastError: Error | undefined;
  #closing = false;

  constructor(address: RedisAddress, options: { connectTimeoutMs?: number } = {}) {
    this.address = address;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  }

  connect(): Promise<void> {
    if (this.connected) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const { host, port } = this.address;
      const socket = this.address.tls
        ? tlsConnect({ host, port, servername: host })
        : netConnect({ host, port });
      this.#socket = socket;
      socket.setNoDelay(true);
      socket.setTimeout(this.#connectTimeoutMs);
      let opened = false;
      socket.once("timeout", () => {
        if (!opened) socket.destroy(new Error(`no answer within ${this.#connectTimeoutMs} ms`));
      });
      socket.on("data", (chunk: Buffer) => this.#receive(chunk));
      socket.on("error", (error) => {
        this.#lastError = error;
        this.onerror?.(error);
      });
      socket.on("close", () => {
        const wasConnected = this.connected;
        this.connected = false;
        const error = this.#lastError ?? new Error("the server closed the connection");
        for (const waiting of this.#pending.splice(0))
          waiting.reject(new Error(`Connection closed: ${error.message}`));
        this.#buffer = Buffer.alloc(0);
        if (!opened) reject(error);
        // A server that went away (killed, restarted) closes without a socket error: still an error.
        if (wasConnected && !this.#closing) this.onclose?.(error);
        else if (wasConnected) this.onclose?.();
      });
      socket.once(this.address.tls ? "secureConnect" : "connect", () => {
        void (async () => {
          try {
            this.connected = true;
            if (this.address.password !== undefined) {
              const auth = this.address.username
                ? [this.address.username, this.address.password]
                : [this.address.password];
              await this.send("AUTH", auth);
            }
            if (this.address.db) await this.send("SELECT", [this.address.db]);
            opened = true;
            socket.setTimeout(0);
            this.onconnect?.();
            resolve();
          } catch (error) {
            this.connected = false;
            socket.destroy();
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        })();
      });
    });
  }

  send<T = RespReply>(command: string, args: ReadonlyArray<string | number | Buffer> = []): Promise<T> {
    const socket = this.#socket;
    if (!this.connected || !socket) return Promise.reject(new Error("Connection closed"));
    RespClient.commandsSent++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ resolve: (reply) => resolve(reply as T), reject });
      socket.write(encodeCommand(command, args));
    });
  }

  get(key: string): Promise<string | null> {
    return this.send<string | null>("GET", [key]);
  }

  smembers(key: string): Promise<string[]> {
    return this.send<string[]>("SMEMBERS", [key]);
  }

  incr(key: string): Promise<number> {
    return this.send<number>("INCR", [key]);
  }

  close(): void {
    this.#closing = true;
    this.connected = false;
    this.#socket?.destroy();
  }

  /** A new, unconnected connection to the same server (BullMQ's blocking connections, reconnects). */
  duplicate(): Promise<this> {
    return Promise.resolve(
      new RespClient(this.address, { connectTimeoutMs: this.#connectTimeoutMs }) as this,
    );
  }

  #receive(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    let offset = 0;
    for (;;) {
      if (offset >= this.#buffer.length) break;
      let parsed: { reply: RespReply; next: number } | undefined;
      try {
        parsed = parseReply(this.#buffer, offset);
      } catch (error) {
        this.#socket?.destroy(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (!parsed) break;
      offset = parsed.next;
      const waiting = this.#pending.shift();
      if (!waiting) continue;
      if (parsed.reply instanceof RedisReplyError) waiting.reject(parsed.reply);
      else waiting.resolve(parsed.reply);
    }
    this.#buffer = offset >= this.#buffer.length ? Buffer.alloc(0) : this.#buffer.subarray(offset);
  }
}
