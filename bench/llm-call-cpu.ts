/**
 * CPU per model call of passk's LLM layer with no network: the openai-compatible provider's fetch
 * answers a canned completion in-process, so what is measured is request building, the AI SDK, response
 * parsing, pricing and passk's wrapping — the part of a conversation step that is not HTTP.
 *
 * Usage: node --import tsx bench/llm-call-cpu.ts [calls=20000]
 */
import { createLanguageModel } from "../src/llm/create-language-model.js";
import { inProcessProviders } from "./in-process-provider.js";

const calls = Number(process.argv[2] ?? 20_000);

const completion = JSON.stringify({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "bench",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: "Here is what I found." },
      finish_reason: "stop",
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 800, completion_tokens: 6, total_tokens: 806 },
});
const cannedFetch: typeof fetch = async () =>
  new Response(completion, { status: 200, headers: { "content-type": "application/json" } });

const model = createLanguageModel("openai-compatible:bench", {
  baseUrl: "http://127.0.0.1:9/v1",
  env: {},
  registry: inProcessProviders(cannedFetch),
});

// About the size of a mock-domain agent call: a policy, eight tools, a short conversation.
const request = {
  system: "You are a support agent. ".repeat(60),
  messages: [
    { role: "user" as const, content: "Hi, I need help with my tasks please." },
    { role: "assistant" as const, content: "Sure, what is your user id?" },
    { role: "user" as const, content: "user_1" },
  ],
  tools: Array.from({ length: 8 }, (_, i) => ({
    name: `tool_${i}`,
    description: "Does something with a user's task list.",
    parameters: {
      type: "object",
      properties: { user_id: { type: "string", description: "The user's id." }, title: { type: "string" } },
      required: ["user_id"],
    },
  })),
  params: { seed: 1 },
};

for (let i = 0; i < 2_000; i++) await model.generate(request); // warm-up (JIT)
const cpuBefore = process.cpuUsage();
for (let i = 0; i < calls; i++) await model.generate(request);
const cpu = process.cpuUsage(cpuBefore);
console.log(
  JSON.stringify({
    bench: "llm-call-cpu",
    calls,
    cpu_ms_per_call: Number(((cpu.user + cpu.system) / 1000 / calls).toFixed(4)),
  }),
);
