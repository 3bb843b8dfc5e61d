/**
 * Where passk's CPU per model call goes (see call-cpu-ratio.ts for the whole): the same conversations
 * (100 at a time, each model call answering after the same latency, as bench-script.ts scripts them)
 * with fewer layers, in one process and with no network:
 * - conversation: in-process models — orchestrator, world, agent and customer prompts only;
 * - ai-sdk: passk's message conversion and the AI SDK's openai-compatible provider, whose `fetch`
 *   answers in process with the mock's own Chat Completions JSON;
 * - ai-sdk+layers: the same through `createLanguageModel`, with passk's layers (settings, retries,
 *   timeout, cost).
 * The ai-sdk rows include the fetch stand-in's own work (parsing the request, rendering the answer),
 * reported apart. What call-cpu-ratio's passk phase costs beyond ai-sdk+layers is the HTTP call. Rounds
 * alternate the order.
 *
 * Usage: node --import tsx bench/call-cpu-layers.ts [concurrency=100] [latencyMs=200] [conversations=300] [rounds=3]
 */
import { createAgent } from "../src/agents/create-agent.js";
import { llmAgent } from "../src/agents/llm-agent.js";
import type { Agent, UserSimulator } from "../src/core/agent.js";
import type { LanguageModel, LlmRequest, LlmResponse } from "../src/core/llm.js";
import { builtinDomains } from "../src/domains/registry.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { createAiSdkLanguageModel } from "../src/llm/ai-sdk-language-model.js";
import { runSimulation } from "../src/orchestrator/simulate.js";
import { conversationSetup } from "../src/runner/simulation-setup.js";
import type { MockLlmConversation } from "../src/testing/mock-llm-codec.js";
import { openAiCodec } from "../src/testing/mock-llm-openai.js";
import { argumentsText, type MockMessageReply } from "../src/testing/mock-llm-reply.js";
import type { MockLlmRequest } from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { createUserSimulator, readUserGuidelines } from "../src/users/create-user.js";
import { llmUser } from "../src/users/llm-user.js";
import { benchScript, modelCalls } from "./bench-script.js";
import { inProcessProviders } from "./in-process-provider.js";

const concurrency = Number(process.argv[2] ?? 100);
const latencyMs = Number(process.argv[3] ?? 200);
const conversations = Number(process.argv[4] ?? 300);
const rounds = Number(process.argv[5] ?? 3);

const data = new DomainData(builtinDomains.get("mock")!, tau2DataDir());
const task = data.task("create_task_1");
const guidelines = readUserGuidelines(tau2DataDir());
const script = benchScript(5);
const usage = { promptTokens: 800, completionTokens: 6 };
const wait = () => new Promise((resolve) => setTimeout(resolve, latencyMs));

let calls = 0;
/** The bench script's reply to a conversation, after the latency. */
async function reply(conversation: MockLlmConversation, body: unknown): Promise<MockMessageReply> {
  const request: MockLlmRequest = {
    ...conversation,
    index: calls++,
    protocol: "openai",
    path: "/v1/chat/completions",
    headers: {},
    body,
    cacheBreakpoints: [],
    receivedAt: 0,
  };
  await wait();
  const answer = script(request);
  if (answer.kind !== "message") throw new Error(`the bench script answered ${answer.kind}`);
  return answer;
}

/** A model answering in process, as the mock would, with no provider in between. */
function inProcessModel(spec: string): LanguageModel {
  return {
    spec,
    async generate(request: LlmRequest): Promise<LlmResponse> {
      const answer = await reply(
        {
          model: spec,
          stream: false,
          system: request.system,
          messages: [...request.messages],
          tools: [...(request.tools ?? [])],
        },
        undefined,
      );
      return {
        text: answer.text ?? null,
        toolCalls: (answer.toolCalls ?? []).map((call, i) => ({
          id: `call_${calls}_${i}`,
          name: call.name,
          ...(typeof call.arguments === "object" ? { arguments: call.arguments } : {}),
          argumentsText: argumentsText(call),
        })),
        usage,
        cost: null,
      };
    },
  };
}

/** Time spent in the fetch stand-in itself (parsing the request, rendering the answer), to subtract. */
let standInMs = 0;

/** The provider's fetch, answered in process with the mock's Chat Completions JSON. */
const inProcessFetch: typeof fetch = async (_input, init) => {
  let start = performance.now();
  const body: unknown = JSON.parse(String(init?.body));
  const route = { path: "/v1/chat/completions", headers: {} };
  const conversation = openAiCodec.parseRequest(body, route);
  standInMs += performance.now() - start;
  const answer = await reply(conversation, body);
  start = performance.now();
  const json = openAiCodec.renderMessage(answer, {
    index: calls,
    model: conversation.model,
    usage,
    chunkSize: 8,
    route,
    body,
  });
  const response = new Response(JSON.stringify(json), {
    status: 200,
    headers: { "content-type": "application/json" },
  });
  standInMs += performance.now() - start;
  return response;
};

const registry = inProcessProviders(inProcessFetch);
const provider = registry.get("openai-compatible");
const baseUrl = "http://127.0.0.1:9/v1";
const sdkModel = (model: string) =>
  createAiSdkLanguageModel({
    spec: { provider: "openai-compatible", model },
    provider,
    sdkModel: provider.createModel(model, { baseUrl, apiKey: "bench", env: {} }),
    stream: false,
  });
const options = { baseUrl, env: { OPENAI_COMPATIBLE_API_KEY: "bench" }, registry };

const setups: Record<string, { agent: Agent; user: UserSimulator }> = {
  conversation: {
    agent: llmAgent(inProcessModel("bench-agent")),
    user: llmUser(inProcessModel("bench-user"), guidelines),
  },
  "ai-sdk": { agent: llmAgent(sdkModel("bench-agent")), user: llmUser(sdkModel("bench-user"), guidelines) },
  "ai-sdk+layers": {
    agent: createAgent("openai-compatible:bench-agent", options),
    user: createUserSimulator("openai-compatible:bench-user", { ...options, guidelines }),
  },
};

/** `count` conversations, `concurrency` at a time; resolves with their model calls. */
async function run(count: number, who: { agent: Agent; user: UserSimulator }): Promise<number> {
  let next = 0;
  let made = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        const result = await runSimulation(conversationSetup({ data, task, ...who, seed: i, trial: i }));
        if (result.termination_reason !== "user_stop")
          throw new Error(`conversation ended by ${result.termination_reason}`);
        made += modelCalls(result.messages);
      }
    }),
  );
  return made;
}

for (const who of Object.values(setups)) await run(concurrency, who); // warm-up
const measured: Record<string, number[]> = {};
const standIn: number[] = [];
for (let round = 0; round < rounds; round++) {
  const order = Object.entries(setups);
  if (round % 2 === 1) order.reverse();
  for (const [name, who] of order) {
    const before = process.cpuUsage();
    const standInBefore = standInMs;
    const made = await run(conversations, who);
    const cpu = process.cpuUsage(before);
    if (name === "ai-sdk") standIn.push(Number(((standInMs - standInBefore) / made).toFixed(3)));
    (measured[name] ??= []).push(Number(((cpu.user + cpu.system) / 1000 / made).toFixed(3)));
  }
}
console.log(
  JSON.stringify({
    bench: "call-cpu-layers",
    concurrency,
    latency_ms: latencyMs,
    cpu_ms_per_call: Object.fromEntries(
      Object.entries(measured).map(([name, values]) => [name, [Math.min(...values), Math.max(...values)]]),
    ),
    // Included in the ai-sdk rows: the stand-in for the model server, not passk.
    fetch_stand_in_ms_per_call: [Math.min(...standIn), Math.max(...standIn)],
  }),
);
