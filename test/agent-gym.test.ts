import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gymApiJsonSchema } from "../src/gym/gym-api.js";
import { REPO_ROOT } from "./helpers/run-cli.js";
import type { AgentSession, UserSimulator } from "../src/core/agent.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { AgentGym, type GymAction, type GymObservation } from "../src/gym/agent-gym.js";
import { gymActionOf } from "../src/gym/episode.js";
import { goldAgent } from "../src/agents/gold-agent.js";
import { startAgent } from "../src/core/task-reading-agent.js";
import { runConversation } from "../src/runner/conversation-job.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { goldUser } from "../src/users/gold-user.js";
import { scriptedUser } from "../src/users/scripted-user.js";

const cache = new Map<string, DomainData>();
const domain = (name: string) => {
  let data = cache.get(name);
  if (!data) cache.set(name, (data = new DomainData(builtinDomains.get(name)!, tau2DataDir())));
  return data;
};

/** Drive a gym episode with the gold agent as the policy (from outside, through reset/step only). */
async function goldEpisode(gym: AgentGym, domainName: string, taskId: string) {
  const task = domain(domainName).tasks.find((t) => t.id === taskId)!;
  const first = await gym.reset({ domain: domainName, taskId });
  const policy: AgentSession = await startAgent(
    goldAgent,
    { policy: first.policy, tools: first.tools, solo: false, seed: 0, history: [] },
    task,
  );
  let observation: GymObservation = {
    ...first,
    messages: first.messages.filter((m) => m.role !== "assistant"),
  };
  let steps = 0;
  while (!observation.done) {
    observation = await gym.step(gymActionOf(await policy.respond(observation.messages)));
    steps++;
  }
  return { ...observation, steps };
}

describe("AgentGym", () => {
  it("is importable as passk/gym, reading the built-in domains from the data directory", async () => {
    const script = `
      import { AgentGym } from "passk/gym";
      const gym = new AgentGym();
      const first = await gym.reset({ domain: "airline", taskId: "0" });
      const next = await gym.step({ content: "Could you give me your user id?" });
      console.log(JSON.stringify({ tools: first.tools.length, roles: first.messages.map((m) => m.role), next: next.messages[0].role }));
      gym.close();`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: REPO_ROOT,
      env: { ...process.env, PASSK_DATA_DIR: tau2DataDir() },
      encoding: "utf8",
    });
    const inProcess = await new AgentGym({ domain }).reset({ domain: "airline", taskId: "0" });
    expect(JSON.parse(out)).toEqual({
      tools: inProcess.tools.length,
      roles: ["assistant", "user"],
      next: "user",
    });
  });

  it("examples/gym/gym-api.schema.json is the JSON Schema of the HTTP gym's bodies", () => {
    const file = path.join(REPO_ROOT, "examples", "gym", "gym-api.schema.json");
    expect(
      JSON.parse(readFileSync(file, "utf8")),
      "regenerate it: npx tsx examples/gym/write-gym-schema.ts",
    ).toEqual(gymApiJsonSchema());
  });

  it("gives every airline task the reward passk's runner gives the same gold conversation", async () => {
    const tasks = domain("airline").tasks;
    expect(tasks.length).toBe(50);
    const gym = new AgentGym({ domain });
    const rewards: number[] = [];
    for (const task of tasks) {
      const episode = await goldEpisode(gym, "airline", task.id);
      const ran = await runConversation({ data: domain("airline"), task, agent: goldAgent, user: goldUser });
      expect(episode.done).toBe(true);
      expect(episode.error).toBeUndefined();
      expect({ task: task.id, reward: episode.reward }).toEqual({
        task: task.id,
        reward: ran.reward_info.reward,
      });
      expect(episode.rewardInfo?.reward_breakdown).toEqual(ran.reward_info.reward_breakdown);
      expect(episode.terminationReason).toBe(ran.termination_reason);
      rewards.push(episode.reward!);
    }
    // The gold policy solves the airline tasks whose gold actions suffice (most of them).
    expect(rewards.filter((r) => r === 1).length).toBeGreaterThanOrEqual(45);
  });

  it("shows the policy the customer's words and its own tool results, and an agent that did nothing scores 0", async () => {
    const gym = new AgentGym({ domain });
    // A task whose goal needs a write (a booking, a cancellation, a change): doing nothing fails it.
    const writing = domain("airline").tasks.find((t) =>
      t.evaluation_criteria?.actions?.some((a) => /^(book|cancel|update)_/.test(a.name)),
    )!;
    const first = await gym.reset({ domain: "airline", taskId: writing.id });
    expect(first.policy).toContain("airline");
    expect(first.tools.map((t) => t.name)).toContain("get_user_details");
    expect(first.messages.map((m) => m.role)).toEqual(["assistant", "user"]);
    const afterCall = await gym.step({
      tool_calls: [{ name: "get_reservation_details", arguments: { reservation_id: "NO_SUCH" } }],
    });
    expect(afterCall.done).toBe(false);
    expect(afterCall.messages).toHaveLength(1);
    expect(afterCall.messages[0]).toMatchObject({ role: "tool", error: true });
    const reply = await gym.step({ content: "Let me look into that." });
    expect(reply.done).toBe(false);
    expect(reply.messages).toMatchObject([{ role: "user", content: "Please go on." }]);
    // The scripted customer ends once the agent asks whether there is anything else; nothing was done.
    const observation = await gym.step({ content: "Is there anything else I can help you with?" });
    expect(observation.done).toBe(true);
    expect(observation.reward).toBe(0);
    expect(observation.terminationReason).toBe("user_stop");
    expect(observation.messages.at(-1)?.content).toContain("###STOP###");
    await expect(gym.step({ content: "hello?" })).rejects.toThrow(/the episode is over/);
  });

  it("refuses a malformed action, a step before reset and an unknown task, with a sentence", async () => {
    const gym = new AgentGym({ domain });
    await expect(gym.step({ content: "hi" })).rejects.toThrow(/call reset\(\) first/);
    await gym.reset({ domain: "airline", taskId: "1" });
    await expect(gym.step({ content: "" })).rejects.toThrow(/content is empty/);
    await expect(gym.step({ tool_calls: [] })).rejects.toThrow(/tool_calls is empty/);
    await expect(gym.step({ content: "a", tool_calls: [] } as unknown as GymAction)).rejects.toThrow(
      /invalid action/,
    );
    await expect(gym.reset({ domain: "airline", taskId: "no-such" })).rejects.toThrow(
      /task "no-such" is not known/,
    );
  });

  it("takes an episode's own customer, any passk user simulator", async () => {
    const gym = new AgentGym({ domain });
    const first = await gym.reset(
      { domain: "airline", taskId: "0" },
      { customer: scriptedUser(["Actually, never mind. ###STOP###"]) },
    );
    expect(first).toMatchObject({ done: true, terminationReason: "user_stop" });
    expect(first.messages.at(-1)?.content).toBe("Actually, never mind. ###STOP###");
    // The next episode is the gym's own customer again.
    expect((await gym.reset({ domain: "airline", taskId: "0" })).done).toBe(false);
  });

  it("ends an episode whose customer fails without a score, saying why", async () => {
    const brokenCustomer: UserSimulator = {
      name: "broken",
      start: () => ({
        respond: () => Promise.reject(new Error("customer model unreachable")),
      }),
    };
    const gym = new AgentGym({ domain, customer: brokenCustomer });
    const first = await gym.reset({ domain: "airline", taskId: "0" });
    expect(first.done).toBe(true);
    expect(first.reward).toBeUndefined();
    expect(first.error).toMatch(/infrastructure error: .*customer model unreachable/);
  });

  it("runs many episodes in parallel, each its own world", async () => {
    const ids = domain("retail")
      .tasks.slice(0, 12)
      .map((t) => t.id);
    const episodes = await Promise.all(ids.map((id) => goldEpisode(new AgentGym({ domain }), "retail", id)));
    const sequential = [];
    for (const id of ids) sequential.push((await goldEpisode(new AgentGym({ domain }), "retail", id)).reward);
    expect(episodes.map((e) => e.reward)).toEqual(sequential);
    expect(episodes.every((e) => e.done && e.steps > 1)).toBe(true);
  });
});
