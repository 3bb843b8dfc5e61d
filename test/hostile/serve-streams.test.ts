import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { REPO_ROOT } from "../helpers/run-cli.js";

// One client held 1,500 event streams on one conversation (+90 MB): the server now lets a client address
// hold at most --max-streams-per-client streams at once, and frees a slot when a stream closes. Real
// HTTP, a real server process; addresses are told apart by X-Forwarded-For under --trust-proxy.

const MAX = 4;
let child: ChildProcess;
let url: string;

beforeAll(async () => {
  const store = path.join(mkdtempSync(path.join(tmpdir(), "passk-serve-streams-")), "store.db");
  child = spawn(
    process.execPath,
    [
      path.join(REPO_ROOT, "bin", "passk.js"),
      "serve",
      "--port",
      "0",
      "--store",
      store,
      "--trust-proxy",
      "--max-streams-per-client",
      String(MAX),
    ],
    { env: { ...process.env, PASSK_DATA_DIR: tau2DataDir() }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`passk serve did not start: ${stderr}`)), 45_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
  });
});
afterAll(() => {
  child?.kill("SIGTERM");
});

async function humanConversation(): Promise<string> {
  const response = await fetch(`${url}/api/conversations`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url, "x-forwarded-for": "10.9.9.9" },
    body: JSON.stringify({ domain: "mock", taskId: "create_task_1", mode: "human" }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { conversationId: string }).conversationId;
}

const follow = (id: string, address: string) =>
  fetch(`${url}/api/conversations/${id}/events?after=-1`, { headers: { "x-forwarded-for": address } });

describe("passk serve: event streams per client", () => {
  it(`a client holds at most ${MAX} streams; the next is a 429 with a sentence, others are unaffected, and a closed stream frees its slot`, async () => {
    // A human-mode conversation waits for the person: its streams stay open.
    const id = await humanConversation();
    const held = [];
    for (let i = 0; i < MAX; i++) {
      const response = await follow(id, "10.0.0.1");
      expect(response.status).toBe(200);
      held.push(response);
    }
    const refused = await follow(id, "10.0.0.1");
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { code: string; message: string };
    expect(body.code).toBe("too_many_streams");
    expect(body.message).toContain(`at most ${MAX} at once`);

    // Another address is its own client.
    const other = await follow(id, "10.0.0.2");
    expect(other.status).toBe(200);
    await other.body!.cancel();

    // Closing one stream gives its slot back (the server sees the socket close).
    await held.pop()!.body!.cancel();
    let again: Response | undefined;
    await expect
      .poll(
        async () => {
          const response = await follow(id, "10.0.0.1");
          if (response.status === 200) again = response;
          else await response.body?.cancel();
          return response.status;
        },
        { timeout: 15_000, interval: 200 },
      )
      .toBe(200);
    await again!.body!.cancel();
    for (const response of held) await response.body!.cancel();
  }, 90_000);
});
