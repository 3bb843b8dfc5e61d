import { describe, expect, it } from "vitest";
import type { Agent, AgentView } from "../src/core/agent.js";
import type { Message } from "../src/core/message.js";
import type { Task } from "../src/core/task.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { runConversation } from "../src/runner/conversation-job.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { goldUser } from "../src/users/gold-user.js";

const airline = new DomainData(builtinDomains.get("airline")!, tau2DataDir());
const mock = new DomainData(builtinDomains.get("mock")!, tau2DataDir());

/** Every object and string reachable from `roots`: own keys (hidden and symbol ones too), prototypes outside the built-ins. */
function reachable(roots: readonly unknown[]): { objects: Set<object>; strings: Set<string> } {
  const objects = new Set<object>();
  const strings = new Set<string>();
  const builtins = new Set<unknown>([Object.prototype, Function.prototype, Array.prototype, null]);
  const stack = [...roots];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === "string") strings.add(value);
    if ((typeof value !== "object" && typeof value !== "function") || value === null || objects.has(value))
      continue;
    objects.add(value);
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key === "string") strings.add(key);
      const descriptor = Reflect.getOwnPropertyDescriptor(value, key)!;
      if ("value" in descriptor) stack.push(descriptor.value);
    }
    const proto: unknown = Reflect.getPrototypeOf(value);
    if (!builtins.has(proto)) stack.push(proto);
  }
  return { objects, strings };
}

/** An agent that keeps everything it is given and says little. */
function spyAgent(): { agent: Agent; given: unknown[] } {
  const given: unknown[] = [];
  const agent: Agent = {
    name: "spy",
    start(view: AgentView) {
      given.push(view);
      return {
        respond: async (incoming: readonly Message[]) => {
          given.push(incoming);
          return { role: "assistant", content: "Is there anything else I can help you with?" };
        },
      };
    },
  };
  return { agent, given };
}

/** An airline task with gold actions and natural-language assertions: hidden criteria worth stealing. */
const task: Task = airline.tasks.find(
  (t) =>
    (t.evaluation_criteria?.actions?.length ?? 0) > 0 &&
    (t.evaluation_criteria?.nl_assertions?.length ?? 0) > 0,
)!;

/** A mock task worked from a ticket (solo mode), with gold actions. */
const soloTask: Task = mock.tasks.find((t) => t.ticket && (t.evaluation_criteria?.actions?.length ?? 0) > 0)!;

function hiddenParts(t: Task): object[] {
  const criteria = t.evaluation_criteria!;
  return [
    t,
    criteria,
    ...criteria.actions!,
    criteria.actions!,
    ...(criteria.nl_assertions ? [criteria.nl_assertions] : []),
  ];
}

describe("what an in-process agent is given", () => {
  it("the walk finds the criteria when they are reachable (the check can fail)", () => {
    const { objects, strings } = reachable([{ policy: "p", task }]);
    expect(hiddenParts(task).every((part) => objects.has(part))).toBe(true);
    expect(strings.has(task.evaluation_criteria!.nl_assertions![0]!)).toBe(true);
  });

  const cases = [
    { name: "with a customer", data: airline, task, solo: false, tool: "book_reservation" },
    { name: "solo, from a ticket", data: mock, task: soloTask, solo: true, tool: "create_task" },
  ];
  for (const { name, data, task: given, solo, tool } of cases) {
    it(`reaches neither the task nor its evaluation criteria (${name})`, async () => {
      const { agent, given: received } = spyAgent();
      await runConversation({ data, task: given, agent, user: goldUser, solo, seed: 0, maxSteps: 6 });
      const { objects, strings } = reachable(received);
      // What it must see: the policy, its tools, the ticket in solo mode.
      expect(strings.has(solo ? data.soloPolicy! : data.policyFor(given))).toBe(true);
      expect(strings.has(tool)).toBe(true);
      if (solo) expect(strings.has(given.ticket!)).toBe(true);
      // What it must not: the task itself, its criteria, the judge's assertions.
      for (const part of hiddenParts(given)) expect(objects.has(part)).toBe(false);
      for (const assertion of given.evaluation_criteria!.nl_assertions ?? [])
        expect(strings.has(assertion)).toBe(false);
      expect(strings.has("evaluation_criteria")).toBe(false);
    });
  }
});
