import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AGENT_STOP_TOKEN, type Agent } from "../core/agent.js";
import { InfrastructureError } from "../core/llm.js";
import type { AssistantMessage, ToolMessage } from "../core/message.js";
import type { Task } from "../core/task.js";
import { defineDomain } from "../env/domain.js";
import { defineTool } from "../env/tool.js";
import { World } from "../env/world.js";
import { scriptedUser } from "../users/scripted-user.js";
import { runSimulation } from "./simulate.js";

// A read tool that answers asynchronously (a search behind an API) is awaited by the orchestrator; a
// failure of its service past retries ends the conversation as an infrastructure error.

const DbSchema = z.object({ docs: z.array(z.string()) });
type Db = z.infer<typeof DbSchema>;

const search = defineTool({
  name: "search",
  description: "Search, asynchronously.",
  kind: "read",
  parameters: z.object({ query: z.string() }),
  run: async (db: Db, { query }) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (query === "down") throw new InfrastructureError("the search API is down", 3);
    return db.docs.filter((d) => d.includes(query)).join(", ") || "nothing";
  },
});

const domain = defineDomain<Db>({
  name: "async-search",
  description: "A domain with an asynchronous search.",
  agent: { db: DbSchema, tools: [search] },
  data: { folder: "x", db: "db.json", tasks: "tasks.json", policy: "policy.md" },
});

const task = { id: "t", user_scenario: { persona: null, instructions: "Ask." } } as unknown as Task;

function searchingAgent(query: string): Agent {
  return {
    name: "searching",
    start: () => {
      let turn = 0;
      return {
        respond: async (): Promise<AssistantMessage> => {
          turn++;
          if (turn === 2)
            return {
              role: "assistant",
              content: null,
              tool_calls: [{ id: "c1", name: "search", arguments: { query }, requestor: "assistant" }],
            };
          return { role: "assistant", content: turn === 1 ? "Hello" : `Found it. ${AGENT_STOP_TOKEN}` };
        },
      };
    },
  };
}

const run = (query: string) =>
  runSimulation({
    task,
    world: new World(domain, { agent: { docs: ["fees", "overdraft fees"] }, user: undefined }),
    agent: searchingAgent(query),
    user: scriptedUser(["What are the fees?", "Thanks"]),
    policy: "",
    agentTools: [],
    userTools: [],
  });

describe("asynchronous tools in a conversation", () => {
  it("the orchestrator waits for the answer", async () => {
    const result = await run("fee");
    const tool = result.messages.find((m): m is ToolMessage => m.role === "tool");
    expect(tool).toMatchObject({ content: "fees, overdraft fees", error: false });
    expect(result.termination_reason).toBe("agent_stop");
  });

  it("a service failing past its retries is an infrastructure error, nobody's score", async () => {
    const result = await run("down");
    expect(result.termination_reason).toBe("infrastructure_error");
    expect(JSON.stringify(result.info)).toContain("the search API is down");
  });
});
