import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { REPO_ROOT } from "../helpers/run-cli.js";

// On a public `passk serve`, a conversation's link lets anyone watch it; only the browser that started
// it (holding the owner token the start answered with) may type in it or end it. Real HTTP, a real
// server process.

let child: ChildProcess;
let url: string;
const folder = mkdtempSync(path.join(tmpdir(), "passk-serve-authz-"));
const store = path.join(folder, "store.db");

beforeAll(async () => {
  child = spawn(
    process.execPath,
    [path.join(REPO_ROOT, "bin", "passk.js"), "serve", "--port", "0", "--store", store],
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

const json = { "content-type": "application/json" };

async function startConversation(
  mode: "human" | "simulate",
): Promise<{ conversationId: string; ownerToken: string }> {
  const response = await fetch(`${url}/api/conversations`, {
    method: "POST",
    headers: { ...json, origin: url },
    body: JSON.stringify({ domain: "mock", taskId: "create_task_1", mode }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { conversationId: string; ownerToken: string };
}

/** The conversation's event stream as a watcher reads it, until `until` appears in it. */
async function watch(id: string, until: string): Promise<string> {
  const response = await fetch(`${url}/api/conversations/${id}/events?after=-1`);
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  let text = "";
  while (!text.includes(until)) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += new TextDecoder().decode(chunk.value);
  }
  await reader.cancel();
  return text;
}

const control = (id: string, action: "messages" | "end", token: string | undefined, body: unknown = {}) =>
  fetch(`${url}/api/conversations/${id}/${action}`, {
    method: "POST",
    headers: { ...json, origin: url, ...(token !== undefined ? { "Passk-Owner-Token": token } : {}) },
    body: JSON.stringify(body),
  });

describe("a shared conversation link: watch, not control", () => {
  let victim: { conversationId: string; ownerToken: string };
  let other: { conversationId: string; ownerToken: string };
  beforeAll(async () => {
    victim = await startConversation("human");
    other = await startConversation("human");
    await watch(victim.conversationId, '"awaiting-customer"');
  });

  it.each([
    [
      "types as the customer without a token",
      "messages",
      (): string | undefined => undefined,
      "no owner token was sent",
    ],
    [
      "types as the customer with a made-up token",
      "messages",
      (): string | undefined => "x".repeat(43),
      "is not this",
    ],
    [
      "types with another conversation's token",
      "messages",
      (): string | undefined => other.ownerToken,
      "is not this",
    ],
    ["ends it without a token", "end", (): string | undefined => undefined, "no owner token was sent"],
    ["ends it with a made-up token", "end", (): string | undefined => "guess", "is not this"],
    [
      "ends it with another conversation's token",
      "end",
      (): string | undefined => other.ownerToken,
      "is not this",
    ],
    [
      "ends it with the token in lower case",
      "end",
      (): string | undefined => victim.ownerToken.toLowerCase(),
      "is not this",
    ],
  ] as const)("a stranger who %s gets 403 and changes nothing", async (_what, action, token, said) => {
    const response = await control(victim.conversationId, action, token(), {
      content: "ATTACKER: please cancel all my reservations",
    });
    expect(response.status).toBe(403);
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe("not_conversation_owner");
    expect(body.message).toContain(said);
    expect(body.message).toContain("only the browser that started");
    const detail = (await (await fetch(`${url}/api/conversations/${victim.conversationId}`)).json()) as {
      live: boolean;
    };
    expect(detail.live).toBe(true);
  });

  it("the owner types and ends it with its token; the stream never shows the stranger's text or the token", async () => {
    const said = await control(victim.conversationId, "messages", victim.ownerToken, {
      content: "I would like to create a task called Important Meeting",
    });
    expect(said.status).toBe(200);
    expect((await control(victim.conversationId, "end", victim.ownerToken)).status).toBe(200);
    const stream = await watch(victim.conversationId, '"conversation-end"');
    expect(stream).toContain("Important Meeting");
    expect(stream).not.toContain("ATTACKER");
    expect(stream).not.toContain(victim.ownerToken);
  });

  it("a simulation cannot be stopped by a watcher; it ends on its own, graded", async () => {
    const simulation = await startConversation("simulate");
    expect((await control(simulation.conversationId, "end", undefined)).status).toBe(403);
    const stream = await watch(simulation.conversationId, '"conversation-end"');
    expect(stream).toContain('"reward"');
    expect(stream).not.toContain('"stopped"');
  });

  it("the list names no conversation it is not asked about by id; the token is kept nowhere", async () => {
    const unasked = (await (await fetch(`${url}/api/conversations`)).json()) as {
      conversations: Array<{ id: string }>;
    };
    expect(unasked.conversations).toEqual([]);
    const asked = (await (
      await fetch(`${url}/api/conversations?ids=${victim.conversationId},${other.conversationId}`)
    ).json()) as { conversations: Array<{ id: string }> };
    expect(asked.conversations.map((c) => c.id).sort()).toEqual(
      [victim.conversationId, other.conversationId].sort(),
    );
    // Only a digest is held, in memory: the store has no token.
    for (const file of [store, `${store}-wal`].filter((f) => existsSync(f)))
      expect(readFileSync(file).includes(Buffer.from(victim.ownerToken))).toBe(false);
  });
});
