import { describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { gymActionOf, type GymObservation } from "../src/gym/episode.js";
import { UserGym } from "../src/gym/user-gym.js";
import { goldAgent } from "../src/agents/gold-agent.js";
import { runConversation } from "../src/runner/conversation-job.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { goldUser } from "../src/users/gold-user.js";

const telecom = new DomainData(builtinDomains.get("telecom")!, tau2DataDir());
const domain = () => telecom;

describe("UserGym", () => {
  it("played by the gold customer from outside, gives telecom's small split the runner's rewards, device actions included", async () => {
    const tasks = telecom.tasksOfSplit("small");
    const gym = new UserGym({ domain });
    let deviceCalls = 0;
    for (const task of tasks) {
      const first = await gym.reset({ domain: "telecom", taskId: task.id });
      expect(first.scenario).toEqual(task.user_scenario);
      expect(first.tools.length).toBeGreaterThan(0);
      const customer = await goldUser.start({
        scenario: first.scenario,
        tools: first.tools,
        task,
        seed: 0,
        history: [],
      });
      let observation: GymObservation = first;
      while (!observation.done) {
        const move = await customer.respond(observation.messages);
        if (move.tool_calls?.length) deviceCalls++;
        observation = await gym.step(gymActionOf(move));
      }
      const ran = await runConversation({ data: telecom, task, agent: goldAgent, user: goldUser });
      expect({ task: task.id, reward: observation.reward }).toEqual({
        task: task.id,
        reward: ran.reward_info.reward,
      });
      expect(observation.reward).toBe(1);
    }
    // The customer's own device: the gym carried their tool calls and answered them.
    expect(deviceCalls).toBeGreaterThan(0);
  });

  it("a customer who hangs up at once ends the call; the agent is graded on what it did", async () => {
    const gym = new UserGym({ domain });
    const task = telecom.tasksOfSplit("small")[0]!;
    const first = await gym.reset({ domain: "telecom", taskId: task.id });
    expect(first.messages.at(-1)).toMatchObject({ role: "assistant" });
    const end = await gym.step({ content: "Never mind. ###STOP###" });
    expect(end).toMatchObject({ done: true, terminationReason: "user_stop", reward: 0 });
    await expect(gym.step({ content: "hello?" })).rejects.toThrow(/the episode is over/);
  });
});
