import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { parseResults } from "../src/formats/tau2/results.js";
import {
  goldScript,
  isUserSimulatorRequest,
  mockReply,
  startMockLlmServer,
  type MockLlmRequest,
  type MockLlmServer,
} from "../src/testing/index.js";
import {
  canonicalJson,
  dataDirWithoutUpstream,
  readFixtureJson,
  referenceTextMatches,
  tau2DataDir,
  type ReferenceFixtures,
} from "../src/testing/tau2-fixtures.js";
import { mockModelFlags, runCli } from "./helpers/run-cli.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";
import { upstreamWithStandInModels } from "./helpers/stand-in-data-models.js";

// The τ² protocol over real HTTP: a default `passk run` on τ²'s domains shows the models exactly what the
// reference shows them — the agent system prompt, the tools (agent's and, in telecom, the customer's),
// the user-simulator prompt — at temperature 0; `--protocol passk` shows passk's own.

interface FixtureTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}
interface ToolsFixture {
  agent_tools: FixtureTool[];
  user_tools: FixtureTool[] | null;
}
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * The fixture's tools as passk knows them from the pinned upstream files alone: the descriptions inside
 * `$defs` (fields of the reference's nested data models: FlightInfo, Passenger, Payment, APNSettings)
 * live in the optional data-model modules, without which passk sends those models without descriptions.
 */
function withoutDefsDescriptions(value: Json, inDefs = false): Json {
  if (Array.isArray(value)) return value.map((v) => withoutDefsDescriptions(v, inDefs));
  if (value === null || typeof value !== "object") return value;
  const out: { [key: string]: Json } = {};
  for (const [key, child] of Object.entries(value)) {
    if (inDefs && key === "description" && typeof child === "string") continue;
    out[key] = withoutDefsDescriptions(child, inDefs || key === "$defs");
  }
  return out;
}

function expectedTools(tools: FixtureTool[], complete = false): Json {
  return tools.map((t) => {
    const tool: Json = {
      type: "function",
      function: {
        name: t.function.name,
        description: t.function.description,
        parameters: t.function.parameters as Json,
      },
    };
    return complete ? tool : withoutDefsDescriptions(tool);
  });
}

const body = (request: MockLlmRequest) =>
  request.body as { messages: Array<{ role: string; content: unknown }>; tools?: Json; temperature?: number };
const system = (request: MockLlmRequest) => String(body(request).messages[0]?.content);

const dir = mkdtempSync(path.join(tmpdir(), "passk-tau2-protocol-"));
const env = { PASSK_DATA_DIR: tau2DataDir(), OPENAI_COMPATIBLE_API_KEY: "sk-test-protocol" };
let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer({ script: [] });
});
afterAll(() => server.close());

/** One conversation of `taskId` through `passk run`, the mock model playing the gold conversation. */
async function runTask(
  domain: string,
  taskId: string,
  extra: string[] = [],
  extraEnv: Record<string, string> = {},
) {
  const data = new DomainData(builtinDomains.get(domain)!, tau2DataDir());
  server.setScript(goldScript(data.task(taskId)));
  const before = server.requests.length;
  const saveTo = path.join(
    dir,
    `${domain}-${taskId}-${extra.join("")}${Object.keys(extraEnv).join("")}.json`,
  );
  const run = await runCliInProcess(
    [
      "run",
      "--domain",
      domain,
      ...mockModelFlags(server.baseUrl),
      "--task-ids",
      taskId,
      "--store",
      path.join(dir, "passk.db"),
      "--save-to",
      saveTo,
      "--progress",
      "none",
      ...extra,
    ],
    { ...env, ...extraEnv },
  );
  expect(run.code, run.stderr).toBe(0);
  const requests = server.requests.slice(before);
  return {
    run,
    agent: requests.filter((r) => !isUserSimulatorRequest(r)),
    user: requests.filter(isUserSimulatorRequest),
    results: parseResults(readFileSync(saveTo, "utf8"), saveTo),
  };
}

// The first task of each domain, for which the reference recorded the user simulator's prompt.
const EXAMPLES = "fixtures/prompts/user_system_prompt_examples.json";
const examples: Record<string, { task_id: string }> = {
  airline: { task_id: "0" },
  retail: { task_id: "0" },
  telecom: { task_id: "[mobile_data_issue]user_abroad_roaming_enabled_off[PERSONA:None]" },
};

/** `actual` must be the reference's text `key`, which `expected` derives from its fixtures. */
function sameAsReference(actual: string, key: string, expected: (f: ReferenceFixtures) => string): void {
  const check = referenceTextMatches(actual, key, expected);
  expect(check.equal, check.message).toBe(true);
}
const toolsOf = (f: ReferenceFixtures, domain: string) =>
  f.json<ToolsFixture>(`fixtures/tools/${domain}.json`);

describe("a default passk run on τ²'s domains sends the reference's texts", () => {
  it.each(["airline", "retail", "telecom"])(
    "%s: agent prompt, tools, user prompt, temperature 0",
    async (domain) => {
      const fixture = readFixtureJson<ToolsFixture>(`fixtures/tools/${domain}.json`);
      const agentPromptFile = `fixtures/prompts/agent_system_prompt_${domain}.txt`;
      // The fixture's example task of telecom is outside the base split.
      const split = domain === "telecom" ? ["--task-split-name", "full"] : [];
      const { agent, user, results, run } = await runTask(domain, examples[domain]!.task_id, split);
      expect(agent.length).toBeGreaterThan(0);
      expect(user.length).toBeGreaterThan(0);
      for (const request of agent) {
        sameAsReference(system(request), agentPromptFile, (f) => f.text(agentPromptFile));
        sameAsReference(
          canonicalJson(body(request).tools),
          `fixtures/tools/${domain}.json#agent_tools.sent`,
          (f) => canonicalJson(expectedTools(toolsOf(f, domain).agent_tools, true)),
        );
        expect(body(request).temperature).toBe(0);
      }
      for (const request of user) {
        sameAsReference(
          system(request),
          `${EXAMPLES}#${domain}.system_prompt`,
          (f) => f.json<Record<string, { system_prompt: string }>>(EXAMPLES)[domain]!.system_prompt,
        );
        expect(body(request).temperature).toBe(0);
        if (fixture.user_tools)
          sameAsReference(
            canonicalJson(body(request).tools),
            `fixtures/tools/${domain}.json#user_tools.sent`,
            (f) => canonicalJson(expectedTools(toolsOf(f, domain).user_tools!, true)),
          );
        else expect(body(request).tools).toBeUndefined();
      }
      // Every output says which protocol, and what it was read from.
      const passk = results.results.info as { passk?: { protocol?: string; upstream_commit?: string } };
      expect(passk.passk?.protocol).toBe("tau2");
      expect(passk.passk?.upstream_commit).toBe("a2c024725189473d2d7cea3a5cfdbcc67478e41f");
      expect(results.results.info.agent_info?.llm_args).toEqual({ temperature: 0 });
      expect(run.stdout).toContain(`${domain}: not τ²-comparable: `);
      expect(run.stdout).toContain("1 trial per task");
    },
  );

  it("with the data-model modules beside the upstream files, the tools are the reference's to the last nested description", async () => {
    const upstream = upstreamWithStandInModels();
    const { agent, user } = await runTask(
      "telecom",
      examples.telecom!.task_id,
      ["--task-split-name", "full"],
      {
        PASSK_TAU2_UPSTREAM: upstream,
      },
    );
    expect(agent.length).toBeGreaterThan(0);
    expect(user.length).toBeGreaterThan(0);
    for (const request of agent)
      sameAsReference(
        JSON.stringify(body(request).tools),
        "fixtures/tools/telecom.json#agent_tools.sent-in-order",
        (f) => JSON.stringify(expectedTools(toolsOf(f, "telecom").agent_tools, true)),
      );
    for (const request of user)
      sameAsReference(
        JSON.stringify(body(request).tools),
        "fixtures/tools/telecom.json#user_tools.sent-in-order",
        (f) => JSON.stringify(expectedTools(toolsOf(f, "telecom").user_tools!, true)),
      );
  });

  it("--protocol passk sends passk's own prompt and descriptions, and no temperature", async () => {
    const { agent, user, results } = await runTask("airline", examples.airline!.task_id, [
      "--protocol",
      "passk",
    ]);
    for (const request of agent) {
      expect(system(request)).toMatch(
        /^<instructions>\nYou are a customer service agent\. Help the customer/,
      );
      const same = referenceTextMatches(
        canonicalJson(body(request).tools),
        "fixtures/tools/airline.json#agent_tools.sent",
        (f) => canonicalJson(expectedTools(toolsOf(f, "airline").agent_tools, true)),
      );
      expect(same.equal).toBe(false);
      expect(body(request).temperature).toBeUndefined();
    }
    expect(user.every((r) => body(r).temperature === undefined)).toBe(true);
    expect((results.results.info as { passk?: { protocol?: string } }).passk?.protocol).toBe("passk");
  });

  it("a model run without the upstream texts stops before any call, saying how to get them", async () => {
    const before = server.requests.length;
    const run = await runCliInProcess(
      [
        "run",
        "--domain",
        "airline",
        ...mockModelFlags(server.baseUrl),
        "--num-tasks",
        "1",
        "--store",
        path.join(dir, "none.db"),
      ],
      { ...env, PASSK_DATA_DIR: dataDirWithoutUpstream(), PASSK_TAU2_UPSTREAM: undefined },
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("run `passk data pull`");
    expect(run.stderr).toContain("--protocol passk");
    expect(server.requests.length).toBe(before);
  });
});

describe("bad model output under the τ² protocol", () => {
  it("tool-call arguments that are not JSON are retried and end as an infrastructure error, never scored", async () => {
    server.setScript((request) =>
      isUserSimulatorRequest(request)
        ? mockReply.text("I want to cancel my reservation.")
        : mockReply.toolCalls([{ name: "get_user_details", arguments: '{"user_id": ' }]),
    );
    const saveTo = path.join(dir, "malformed.json");
    const before = server.requests.length;
    const run = await runCliInProcess(
      [
        "run",
        "--domain",
        "airline",
        ...mockModelFlags(server.baseUrl),
        "--num-tasks",
        "1",
        "--max-attempts",
        "2",
        "--store",
        path.join(dir, "malformed.db"),
        "--save-to",
        saveTo,
      ],
      env,
    );
    // Nothing could be graded: the run says so and exits 3, never "completed" with 0.
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain(
      "error: nothing could be graded: all 1 conversations ended without a gradable result",
    );
    const [simulation] = parseResults(readFileSync(saveTo, "utf8"), saveTo).results.simulations;
    expect(simulation!.termination_reason).toBe("infrastructure_error");
    expect(simulation!.info).toMatchObject({ error_type: "UnusableModelOutputError" });
    expect(run.stdout).toMatch(/airline\s+0\s+0\s+1\s/); // no task scored, one infrastructure error
    // Run again once (--max-attempts 2): one agent call per attempt, each answered with bad JSON.
    expect(server.requests.slice(before).filter((r) => !isUserSimulatorRequest(r)).length).toBe(2);
  });
});

describe("results as the reference writes them", () => {
  it("a model's 2.0 stays a float — in the tool output, the results file and a strict re-grade — and gold actions carry tool_type", async () => {
    const taskId = "[mobile_data_issue]data_usage_exceeded|user_abroad_roaming_enabled_off[PERSONA:Easy]";
    const { results, agent } = await runTask("telecom", taskId);
    // The gold model sends the task's own `"gb_amount": 2.0`, as a model writing a float would, and
    // sees it so in its history afterwards.
    expect(agent.some((r) => /gb_amount\\":\s?2\.0/.test(JSON.stringify(r.body)))).toBe(true);
    const file = path.join(dir, `telecom-${taskId}-.json`);
    const text = readFileSync(file, "utf8");
    expect(text).toMatch(/"gb_amount": 2\.0\b/);
    const [simulation] = results.results.simulations;
    const output = simulation!.messages.find(
      (m) => m.role === "tool" && typeof m.content === "string" && m.content.includes("GB"),
    );
    expect(output?.content).toContain("2.0 GB");
    expect(simulation!.reward_info?.reward).toBe(1);
    expect(simulation!.reward_info?.action_checks?.map((c) => [c.action.name, c.tool_type])).toEqual([
      ["refuel_data", "write"],
      ["toggle_roaming", "write"],
    ]);
    // The reference's strict replay (re-executed writes must print what was recorded) reproduces it.
    // Spawned: the `score` family's end-to-end run of the binary.
    const score = await runCli(["score", file, "--json"], { env });
    expect(score.code, score.stderr).toBe(0);
    const rescored = JSON.parse(score.stdout) as {
      simulations: Array<{ recorded_reward: number; reward: number }>;
    };
    expect(rescored.simulations).toEqual([expect.objectContaining({ recorded_reward: 1, reward: 1 })]);
  });
});
