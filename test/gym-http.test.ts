import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { GymObservationSchema, GymSessionCreatedSchema } from "../src/gym/gym-api.js";
import { goldAgent } from "../src/agents/gold-agent.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { runConversation } from "../src/runner/conversation-job.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { goldUser } from "../src/users/gold-user.js";
import { startServe } from "./helpers/passk-process.js";
import { REPO_ROOT } from "./helpers/run-cli.js";

// The agent gym over real HTTP (`passk serve --gym`), driven by the Python client of examples/gym.

interface Episode {
  task: string;
  reward: number | null;
  termination: string | null;
  error: string | null;
  steps: number;
}

function play(url: string, args: string[]): Promise<Episode[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "python3",
      [path.join(REPO_ROOT, "examples", "gym", "play.py"), "--url", url, ...args],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve(
            out
              .trim()
              .split("\n")
              .map((line) => JSON.parse(line) as Episode),
          )
        : reject(new Error(`play.py exited ${code}: ${err}`)),
    );
  });
}

const env = { ...process.env, PASSK_DATA_DIR: tau2DataDir() };
let served: Awaited<ReturnType<typeof startServe>>;
const json = { "content-type": "application/json" };
const post = (path: string, body: unknown) =>
  fetch(`${served.url}/api/gym${path}`, { method: "POST", headers: json, body: JSON.stringify(body) });

beforeAll(async () => {
  const store = path.join(mkdtempSync(path.join(tmpdir(), "passk-gym-")), "store.db");
  served = await startServe(["--gym", "--gym-max-sessions", "3", "--store", store], env);
});
afterAll(() => served?.stop());

describe("passk serve --gym", () => {
  it("the Python client's gold policy reaches 1.0 on every airline and retail task and telecom's small split, as passk run grades them", async () => {
    const telecom = new DomainData(builtinDomains.get("telecom")!, tau2DataDir());
    const small = telecom.tasksOfSplit("small");
    expect(small.length).toBe(20);
    // Telecom's task ids run past 200 characters; the task endpoint the client reads answers them all.
    const longest = telecom.tasks.map((t) => t.id).sort((a, b) => b.length - a.length)[0]!;
    expect(longest.length).toBeGreaterThan(200);
    const detail = await fetch(`${served.url}/api/domains/telecom/tasks/${encodeURIComponent(longest)}`);
    expect(detail.status).toBe(200);
    for (const [domain, args] of [
      ["airline", []],
      ["retail", []],
      ["telecom", ["--tasks", small.map((t) => t.id).join(",")]],
    ] as const) {
      const episodes = await play(served.url, ["--domain", domain, "--policy", "gold", ...args]);
      const data =
        domain === "telecom" ? telecom : new DomainData(builtinDomains.get(domain)!, tau2DataDir());
      const tasks = domain === "telecom" ? small : data.tasks;
      expect(episodes.map((e) => e.task)).toEqual(tasks.map((t) => t.id));
      expect(episodes.filter((e) => e.reward !== 1)).toEqual([]);
      // Parity: the runner gives the gold conversation of a sample of them the same reward.
      for (const task of tasks.slice(0, 5)) {
        const ran = await runConversation({ data, task, agent: goldAgent, user: goldUser });
        expect(ran.reward_info.reward).toBe(episodes.find((e) => e.task === task.id)!.reward);
      }
    }
  });

  it("a random policy plays to the end and scores below the gold policy", async () => {
    const episodes = await play(served.url, [
      "--domain",
      "airline",
      "--tasks",
      "0,1,2,3,4,5",
      "--policy",
      "random",
      "--seed",
      "3",
    ]);
    expect(episodes).toHaveLength(6);
    expect(episodes.every((e) => e.error === null && typeof e.reward === "number")).toBe(true);
    expect(episodes.filter((e) => e.reward === 1).length).toBeLessThan(6);
  });

  it("answers bad calls with a status and a sentence, and holds at most --gym-max-sessions", async () => {
    const bad = await post("/sessions", { domain: "airline", taskId: "no-such-task" });
    expect(bad.status).toBe(404);
    expect(((await bad.json()) as { message: string }).message).toMatch(/task "no-such-task" is not known/);
    const sessions: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await post("/sessions", { domain: "airline", taskId: String(i) });
      expect(created.status).toBe(201);
      // The answer is what examples/gym/gym-api.schema.json says it is.
      sessions.push(GymSessionCreatedSchema.parse(await created.json()).session);
    }
    const full = await post("/sessions", { domain: "airline", taskId: "4" });
    expect(full.status).toBe(503);
    expect(((await full.json()) as { code: string }).code).toBe("gym_sessions_full");
    // Only the customers the server offers may play; the gold one is always there.
    const modelCustomer = await post("/sessions", {
      domain: "airline",
      taskId: "4",
      customer: "openai:gpt-4.1",
    });
    expect(modelCustomer.status).toBe(404);
    expect(((await modelCustomer.json()) as { message: string }).message).toMatch(
      /gym customer "openai:gpt-4.1" is not known \(known: scripted:gold/,
    );
    const malformed = await post(`/sessions/${sessions[0]}/step`, { content: "" });
    expect(malformed.status).toBe(400);
    const unknown = await post(`/sessions/${crypto.randomUUID()}/step`, { content: "hi" });
    expect(unknown.status).toBe(404);
    // Asking whether there is anything else ends the scripted customer's call: then the episode is over.
    const ended = await post(`/sessions/${sessions[0]}/step`, {
      content: "Is there anything else I can help you with?",
    });
    const last = z.object({ observation: GymObservationSchema }).parse(await ended.json()).observation;
    expect(last).toMatchObject({ done: true, terminationReason: "user_stop" });
    expect(typeof last.reward).toBe("number");
    const after = await post(`/sessions/${sessions[0]}/step`, { content: "hello?" });
    expect(after.status).toBe(409);
    for (const session of sessions) {
      const closed = await fetch(`${served.url}/api/gym/sessions/${session}`, { method: "DELETE" });
      expect(closed.status).toBe(204);
    }
    expect((await post("/sessions", { domain: "airline", taskId: "4" })).status).toBe(201);
  });
});
