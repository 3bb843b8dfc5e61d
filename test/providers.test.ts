import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import { InfrastructureError, type LlmRequest } from "../src/core/llm.js";
import { modelPricing, type PriceOverrides } from "../src/llm/cost.js";
import { createLanguageModel } from "../src/llm/create-language-model.js";
import {
  createDefaultProviderRegistry,
  createProviderRegistry,
  defaultProviderDefinitions,
} from "../src/llm/provider-registry.js";
import {
  mockReply,
  startMockLlmServer,
  type MockLlmProtocol,
  type MockLlmServer,
} from "../src/testing/index.js";
import { runCli } from "./helpers/run-cli.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";

/** One provider as a test talks to it: the mock server's path for its base URL, fake credentials. */
interface ProviderCase {
  name: string;
  spec: string;
  wire: MockLlmProtocol;
  /** Appended to the mock server's URL to make the provider's base URL (its real API's path). */
  path: string;
  env: Record<string, string>;
  /** What a refused-credentials error must name. */
  credentials: RegExp;
  /** A header that carries the credentials on the wire, and what it starts with. */
  authHeader: [string, RegExp];
  priceOverrides?: PriceOverrides;
}

const secret = (name: string) => `secret-${name}-0123456789abcdef`;

const CASES: ProviderCase[] = [
  {
    name: "openai",
    spec: "openai:gpt-4o-mini",
    wire: "openai",
    path: "/v1",
    env: { OPENAI_API_KEY: secret("openai") },
    credentials: /check OPENAI_API_KEY/,
    authHeader: ["authorization", /^Bearer secret-openai/],
  },
  {
    name: "openai-responses",
    spec: "openai-responses:gpt-4o-mini",
    wire: "openai-responses",
    path: "/v1",
    env: { OPENAI_API_KEY: secret("responses") },
    credentials: /check OPENAI_API_KEY/,
    authHeader: ["authorization", /^Bearer secret-responses/],
  },
  {
    name: "anthropic",
    spec: "anthropic:claude-sonnet-4-5",
    wire: "anthropic",
    path: "/v1",
    env: { ANTHROPIC_API_KEY: secret("anthropic") },
    credentials: /check ANTHROPIC_API_KEY/,
    authHeader: ["x-api-key", /^secret-anthropic/],
  },
  {
    name: "openai-compatible",
    spec: "openai-compatible:local-model",
    wire: "openai",
    path: "/v1",
    env: { OPENAI_COMPATIBLE_API_KEY: secret("compatible") },
    credentials: /check OPENAI_COMPATIBLE_API_KEY/,
    authHeader: ["authorization", /^Bearer secret-compatible/],
    priceOverrides: {
      models: { "openai-compatible:local-model": { input_mtok: 1, output_mtok: 2, cache_read_mtok: 0.25 } },
    },
  },
  {
    name: "google",
    spec: "google:gemini-2.5-flash",
    wire: "google",
    path: "/v1beta",
    env: { GOOGLE_GENERATIVE_AI_API_KEY: secret("google") },
    credentials: /check GOOGLE_GENERATIVE_AI_API_KEY/,
    authHeader: ["x-goog-api-key", /^secret-google/],
  },
  {
    name: "google-vertex (express mode)",
    spec: "google-vertex:gemini-2.5-flash",
    wire: "google",
    path: "/v1/publishers/google",
    env: { GOOGLE_VERTEX_API_KEY: secret("vertex") },
    credentials: /check GOOGLE_VERTEX_API_KEY, or the Application Default Credentials/,
    authHeader: ["x-goog-api-key", /^secret-vertex/],
  },
  {
    name: "azure",
    spec: "azure:gpt-4o",
    wire: "openai",
    path: "/openai/v1",
    env: { AZURE_API_KEY: secret("azure") },
    credentials: /check AZURE_API_KEY/,
    authHeader: ["api-key", /^secret-azure/],
  },
  {
    name: "amazon-bedrock (SigV4 keys)",
    spec: "amazon-bedrock:amazon.nova-pro-v1:0",
    wire: "bedrock",
    path: "",
    env: {
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "AKIAPASSKTEST0000001",
      AWS_SECRET_ACCESS_KEY: secret("aws-secret"),
      AWS_SESSION_TOKEN: secret("aws-session"),
    },
    credentials: /check AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY/,
    authHeader: [
      "authorization",
      /^AWS4-HMAC-SHA256 Credential=AKIAPASSKTEST0000001\/\d+\/us-east-1\/bedrock\//,
    ],
  },
  {
    name: "amazon-bedrock (API key)",
    spec: "amazon-bedrock:us.anthropic.claude-3-5-haiku-20241022-v1:0",
    wire: "bedrock",
    path: "",
    env: { AWS_BEARER_TOKEN_BEDROCK: secret("bedrock") },
    credentials: /check AWS_BEARER_TOKEN_BEDROCK/,
    authHeader: ["authorization", /^Bearer secret-bedrock/],
  },
  {
    name: "mistral",
    spec: "mistral:mistral-small-latest",
    wire: "openai",
    path: "/v1",
    env: { MISTRAL_API_KEY: secret("mistral") },
    credentials: /check MISTRAL_API_KEY/,
    authHeader: ["authorization", /^Bearer secret-mistral/],
  },
  {
    name: "groq",
    spec: "groq:llama-3.3-70b-versatile",
    wire: "openai",
    path: "/openai/v1",
    env: { GROQ_API_KEY: secret("groq") },
    credentials: /check GROQ_API_KEY/,
    authHeader: ["authorization", /^Bearer secret-groq/],
  },
  {
    name: "xai",
    spec: "xai:grok-3",
    wire: "openai",
    path: "/v1",
    env: { XAI_API_KEY: secret("xai") },
    credentials: /check XAI_API_KEY/,
    authHeader: ["authorization", /^Bearer secret-xai/],
  },
  {
    name: "deepseek",
    spec: "deepseek:deepseek-chat",
    wire: "openai",
    path: "",
    env: { DEEPSEEK_API_KEY: secret("deepseek") },
    credentials: /check DEEPSEEK_API_KEY/,
    authHeader: ["authorization", /^Bearer secret-deepseek/],
  },
  {
    name: "togetherai",
    spec: "togetherai:meta-llama/Llama-3.3-70B-Instruct-Turbo",
    wire: "openai",
    path: "/v1",
    env: { TOGETHER_API_KEY: secret("together") },
    credentials: /check TOGETHER_API_KEY/,
    authHeader: ["authorization", /^Bearer secret-together/],
  },
  {
    name: "fireworks",
    spec: "fireworks:accounts/fireworks/models/deepseek-r1-0528",
    wire: "openai",
    path: "/inference/v1",
    env: { FIREWORKS_API_KEY: secret("fireworks") },
    credentials: /check FIREWORKS_API_KEY/,
    authHeader: ["authorization", /^Bearer secret-fireworks/],
  },
  {
    name: "cohere",
    spec: "cohere:command-r-plus",
    wire: "cohere",
    path: "/v2",
    env: { COHERE_API_KEY: secret("cohere") },
    credentials: /check COHERE_API_KEY/,
    authHeader: ["authorization", /^Bearer secret-cohere/],
  },
  {
    name: "openrouter",
    spec: "openrouter:openai/gpt-4o",
    wire: "openai",
    path: "/api/v1",
    env: { OPENROUTER_API_KEY: secret("openrouter") },
    credentials: /check OPENROUTER_API_KEY/,
    authHeader: ["authorization", /^Bearer secret-openrouter/],
  },
];

/** A fixed instant: some prices depend on the time (DeepSeek's off-peak hours). */
const AT = new Date("2026-01-15T12:00:00Z");
const SYSTEM = "You are a support agent.";
const TOOLS: LlmRequest["tools"] = [
  {
    name: "get_order",
    description: "Look an order up.",
    parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
  },
];
const FIRST_USAGE = { promptTokens: 1000, completionTokens: 20, cachedTokens: 400 };
const SECOND_USAGE = { promptTokens: 1200, completionTokens: 8, cachedTokens: 400 };

let server: MockLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function split(spec: string): { provider: string; model: string } {
  const colon = spec.indexOf(":");
  return { provider: spec.slice(0, colon), model: spec.slice(colon + 1) };
}

function modelFor(
  test: ProviderCase,
  base: MockLlmServer,
  options: { stream?: boolean; maxAttempts?: number; sleep?: (ms: number) => Promise<void> } = {},
) {
  return createLanguageModel(test.spec, {
    baseUrl: base.url + test.path,
    env: test.env,
    stream: options.stream ?? false,
    now: () => AT,
    retry: {
      maxAttempts: options.maxAttempts ?? 3,
      initialDelayMs: 1,
      jitter: 0,
      sleep: options.sleep ?? (async () => {}),
    },
    ...(test.priceOverrides ? { priceOverrides: test.priceOverrides } : {}),
  });
}

/** What the call should cost at the table's (or the override's) rates for these tokens. */
function expectedCost(test: ProviderCase, base: MockLlmServer, usage: typeof FIRST_USAGE): number {
  const { provider, model } = split(test.spec);
  const pricing = modelPricing({
    provider,
    model,
    lookup: createDefaultProviderRegistry()
      .get(provider)
      .priceLookup(base.url + test.path),
    ...(test.priceOverrides ? { overrides: test.priceOverrides } : {}),
    at: AT,
  });
  expect(pricing, `${test.spec} should be in the price table`).not.toBeNull();
  const uncached = usage.promptTokens - usage.cachedTokens;
  return (
    (uncached * pricing!.inputMtok +
      usage.cachedTokens * pricing!.cacheReadMtok +
      usage.completionTokens * pricing!.outputMtok) /
    1e6
  );
}

/** Every text an error shows: its message and its causes'. */
function errorTexts(error: unknown): string {
  const texts: string[] = [];
  for (let current: unknown = error; current instanceof Error; current = current.cause)
    texts.push(current.message);
  return texts.join("\n");
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the call to fail");
}

function expectNoSecrets(test: ProviderCase, text: string): void {
  for (const [name, value] of Object.entries(test.env)) {
    if (/KEY|TOKEN|SECRET/.test(name)) expect(text, `${name} leaked`).not.toContain(value);
  }
}

describe.each(CASES)("provider $name over the $wire wire", (test) => {
  it.each([
    ["JSON", false],
    ["stream", true],
  ])("holds a conversation with a tool call (%s): usage counted, cost priced", async (_label, stream) => {
    server = await startMockLlmServer({
      script: [
        mockReply.toolCall("get_order", { order_id: "#1" }, { usage: FIRST_USAGE }),
        mockReply.text("Your order has shipped.", { usage: SECOND_USAGE }),
      ],
    });
    const model = modelFor(test, server, { stream });
    const first = await model.generate({
      system: SYSTEM,
      messages: [{ role: "user", content: "Where is my order #1?" }],
      tools: TOOLS,
    });
    expect(first.toolCalls).toHaveLength(1);
    expect(first.toolCalls[0]).toMatchObject({ name: "get_order", arguments: { order_id: "#1" } });
    // Every provider package reports the prompt tokens read from the cache, except Cohere's.
    const cached = test.wire === "cohere" ? {} : { cacheReadTokens: 400 };
    expect(first.usage).toEqual({ promptTokens: 1000, completionTokens: 20, ...cached });
    expect(first.cost).toBeCloseTo(expectedCost(test, server, FIRST_USAGE), 12);
    expect(first.cost).toBeGreaterThan(0);

    const call = first.toolCalls[0]!;
    const second = await model.generate({
      system: SYSTEM,
      messages: [
        { role: "user", content: "Where is my order #1?" },
        { role: "assistant", content: null, toolCalls: [call] },
        { role: "tool", toolCallId: call.id, toolName: "get_order", content: '{"status": "shipped"}' },
      ],
      tools: TOOLS,
    });
    expect(second.text).toBe("Your order has shipped.");
    expect(second.toolCalls).toEqual([]);
    expect(second.usage).toEqual({ promptTokens: 1200, completionTokens: 8, ...cached });
    expect(second.cost).toBeCloseTo(expectedCost(test, server, SECOND_USAGE), 12);

    const [asked, answered] = server.requests;
    expect(asked).toMatchObject({ protocol: test.wire, model: split(test.spec).model, stream });
    expect(asked!.headers[test.authHeader[0]]).toMatch(test.authHeader[1]);
    expect(answered!.system).toBe(SYSTEM);
    expect(answered!.tools.map((tool) => tool.name)).toEqual(["get_order"]);
    expect(answered!.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
    const replayed = answered!.messages[1]!;
    expect(replayed.role === "assistant" && replayed.toolCalls?.[0]).toMatchObject({
      name: "get_order",
      arguments: { order_id: "#1" },
    });
    expect(answered!.messages[2]).toMatchObject({ role: "tool", content: '{"status": "shipped"}' });
  });

  it("waits out a 429's Retry-After, then succeeds", async () => {
    server = await startMockLlmServer({
      script: [
        mockReply.error(429, { retryAfterSeconds: 3, message: "Rate limit reached" }),
        mockReply.text("Hello."),
      ],
    });
    const slept: number[] = [];
    const model = modelFor(test, server, {
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
    const reply = await model.generate({ system: SYSTEM, messages: [{ role: "user", content: "Hi" }] });
    expect(reply.text).toBe("Hello.");
    expect(slept).toEqual([3000]);
    expect(server.requests).toHaveLength(2);
  });

  it("ends as an InfrastructureError when a 5xx outlasts the retries, with no key in the text", async () => {
    const leaked = Object.values(test.env).join(" ");
    server = await startMockLlmServer({
      script: () => mockReply.error(503, { message: `overloaded (request carried ${leaked})` }),
    });
    const error = await failure(
      modelFor(test, server).generate({ system: SYSTEM, messages: [{ role: "user", content: "Hi" }] }),
    );
    expect(error).toBeInstanceOf(InfrastructureError);
    expect((error as InfrastructureError).attempts).toBe(3);
    expect(error.message).toContain(`${test.spec}: the provider call failed 3 times (last: HTTP 503`);
    expect(server.requests).toHaveLength(3);
    expectNoSecrets(test, errorTexts(error));
  });

  it("stops at a 401 with a ConfigError naming the credentials, never showing them", async () => {
    const leaked = Object.values(test.env).join(" ");
    server = await startMockLlmServer({
      script: [mockReply.error(401, { message: `Incorrect credentials provided: ${leaked}` })],
    });
    const error = await failure(
      modelFor(test, server).generate({ system: SYSTEM, messages: [{ role: "user", content: "Hi" }] }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(new RegExp(`^${test.spec.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: `));
    expect(error.message).toMatch(test.credentials);
    expect(server.requests).toHaveLength(1);
    expectNoSecrets(test, errorTexts(error));
  });
});

describe("provider specifics", () => {
  it("reads Gemini's RetryInfo from the error body when no Retry-After header came", async () => {
    server = await startMockLlmServer({
      script: [
        mockReply.error(429, {
          body: JSON.stringify({
            error: {
              code: 429,
              message: "Resource has been exhausted (e.g. check quota).",
              status: "RESOURCE_EXHAUSTED",
              details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "7s" }],
            },
          }),
        }),
        mockReply.text("Hello."),
      ],
    });
    const slept: number[] = [];
    const model = modelFor(
      CASES.find((c) => c.name === "google")!,
      server,
      {
        sleep: async (ms) => {
          slept.push(ms);
        },
      },
    );
    expect((await model.generate({ system: "", messages: [{ role: "user", content: "Hi" }] })).text).toBe(
      "Hello.",
    );
    expect(slept).toEqual([7000]);
  });

  it("replays earlier tool calls as the text the model wrote where the package sends text, else as an object", async () => {
    server = await startMockLlmServer({ script: () => mockReply.text("ok") });
    const replayed = async (name: string, argumentsText: string) => {
      const messages: LlmRequest["messages"] = [
        { role: "user", content: "Hi" },
        {
          role: "assistant",
          content: null,
          toolCalls: [
            {
              id: "c1",
              name: "get_order",
              argumentsText,
              ...(argumentsText.endsWith("}") ? { arguments: { order_id: "#1", n: 2 } } : {}),
            },
          ],
        },
        { role: "tool", toolCallId: "c1", toolName: "get_order", content: "done" },
      ];
      await modelFor(
        CASES.find((c) => c.name === name)!,
        server!,
      ).generate({ system: "", messages, tools: TOOLS });
      const sent = server!.requests.at(-1)!.messages[1]!;
      return sent.role === "assistant" ? sent.toolCalls?.[0]?.argumentsText : undefined;
    };
    // Text: floats come back as the model wrote them (`2.0`).
    expect(await replayed("openai", '{"order_id": "#1", "n": 2.0}')).toBe('{"order_id": "#1", "n": 2.0}');
    expect(await replayed("openai-compatible", '{"order_id": "#1", "n": 2.0}')).toBe(
      '{"order_id": "#1", "n": 2.0}',
    );
    // Object: parsed arguments, and {} for a malformed call (never a JSON-quoted string).
    for (const name of [
      "google",
      "amazon-bedrock (API key)",
      "mistral",
      "azure",
      "cohere",
      "openrouter",
      "groq",
    ]) {
      // (OpenRouter's package sorts the keys.)
      expect(JSON.parse((await replayed(name, '{"order_id": "#1", "n": 2.0}')) ?? ""), name).toEqual({
        order_id: "#1",
        n: 2,
      });
      expect(await replayed(name, '{"order_id": '), name).toBe("{}");
    }
  });

  it("names the package to install when a provider's package is missing, or of another major version", () => {
    const google = defaultProviderDefinitions().find((definition) => definition.id === "google")!;
    const registry = createProviderRegistry([
      { ...google, id: "ghost", package: { name: "@passk-test/no-such-provider", major: 1, optional: true } },
      { ...google, id: "future-google", package: { name: "@ai-sdk/google", major: 9, optional: true } },
    ]);
    const env = { GOOGLE_GENERATIVE_AI_API_KEY: secret("google") };
    expect(() => createLanguageModel("ghost:gemini-2.5-flash", { registry, env })).toThrow(
      new ConfigError(
        "the ghost provider needs the package @passk-test/no-such-provider@1: npm install @passk-test/no-such-provider@1",
      ),
    );
    expect(() => createLanguageModel("future-google:gemini-2.5-flash", { registry, env })).toThrow(
      /^the future-google provider needs @ai-sdk\/google@9 \(AI SDK 6\) but 3\.\d+\.\d+ is installed: npm install @ai-sdk\/google@9$/,
    );
  });

  it("answers a 429 with each provider's rate-limit headers and error JSON", async () => {
    server = await startMockLlmServer({
      script: () => mockReply.error(429, { retryAfterSeconds: 2, message: "slow" }),
    });
    const post = (path: string, body: unknown) =>
      fetch(server!.url + path, { method: "POST", body: JSON.stringify(body) });

    const openai = await post("/v1/chat/completions", { model: "m", messages: [] });
    expect(openai.headers.get("retry-after")).toBe("2");
    expect(openai.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect(openai.headers.get("x-ratelimit-reset-requests")).toBe("2s");
    expect(await openai.json()).toMatchObject({ error: { message: "slow", code: "rate_limit_exceeded" } });

    const anthropic = await post("/v1/messages", { model: "m", max_tokens: 1, messages: [] });
    expect(anthropic.headers.get("anthropic-ratelimit-requests-remaining")).toBe("0");
    expect(await anthropic.json()).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });

    const google = await post("/v1beta/models/gemini-2.5-flash:generateContent", { contents: [] });
    expect(await google.json()).toMatchObject({
      error: { code: 429, status: "RESOURCE_EXHAUSTED", details: [{ retryDelay: "2s" }] },
    });

    const bedrock = await post("/model/amazon.nova-pro-v1%3A0/converse", { messages: [] });
    expect(bedrock.headers.get("x-amzn-errortype")).toMatch(/^ThrottlingException:/);
    expect(await bedrock.json()).toEqual({ message: "slow" });

    const cohere = await post("/v2/chat", { model: "m", messages: [] });
    expect(await cohere.json()).toMatchObject({ message: "slow" });

    const responses = await post("/v1/responses", { model: "m", input: [] });
    expect(responses.headers.get("x-ratelimit-remaining-tokens")).toBe("0");
    expect(await responses.json()).toMatchObject({ error: { code: "rate_limit_exceeded" } });
  });
});

describe("passk models", () => {
  it("lists every provider with its package and whether each variable is set, never the values", async () => {
    const run = await runCliInProcess(["models"], {
      GOOGLE_GENERATIVE_AI_API_KEY: "visible-google-secret-123",
      AWS_SECRET_ACCESS_KEY: "visible-aws-secret-456",
      AWS_REGION: "eu-west-3",
      OPENAI_API_KEY: "",
      AZURE_RESOURCE_NAME: "",
    });
    expect(run.code).toBe(0);
    for (const id of createDefaultProviderRegistry().ids)
      expect(run.stdout).toMatch(new RegExp(`^${id}  `, "m"));
    expect(run.stdout).toMatch(
      /^google {2}@ai-sdk\/google@3 \(optional\): installed 3\.\d+\.\d+ {2}\[wire: google\]$/m,
    );
    expect(run.stdout).toMatch(/^openai {2}@ai-sdk\/openai@3 \(bundled\): installed 3\./m);
    expect(run.stdout).toMatch(/^ {2}GOOGLE_GENERATIVE_AI_API_KEY +set +API key$/m);
    expect(run.stdout).toMatch(/^ {2}AWS_SECRET_ACCESS_KEY +set +secret access key/m);
    expect(run.stdout).toMatch(/^ {2}AWS_REGION +set +AWS region/m);
    expect(run.stdout).toMatch(/^ {2}OPENAI_API_KEY +not set \(needed\) +API key$/m);
    expect(run.stdout).toMatch(/^ {2}AZURE_RESOURCE_NAME +not set +Azure OpenAI resource name$/m);
    expect(run.stdout).not.toContain("visible-google-secret-123");
    expect(run.stdout).not.toContain("visible-aws-secret-456");
    expect(run.stdout).not.toContain("eu-west-3");
  });

  it("with --model says whether the price table covers it and at what rates", async () => {
    const known = await runCliInProcess(["models", "--model", "google:gemini-2.5-flash"], {
      GOOGLE_GENERATIVE_AI_API_KEY: "visible-google-secret-123",
    });
    expect(known.code).toBe(0);
    expect(known.stdout.split("\n")[0]).toBe("model google:gemini-2.5-flash");
    expect(known.stdout).toMatch(
      /^price from the price table \(google\/gemini-2\.5-flash\), USD per million tokens: input \$[\d.]+, output \$[\d.]+, cache read \$[\d.]+, cache write \$[\d.]+$/m,
    );
    expect(known.stdout).not.toContain("visible-google-secret-123");

    const unknown = await runCliInProcess(
      ["models", "--model", "openai-compatible:my-local-model", "--json"],
      { OPENAI_COMPATIBLE_BASE_URL: "http://localhost:11434/v1" },
    );
    expect(unknown.code).toBe(0);
    const report = JSON.parse(unknown.stdout) as { pricing: unknown; env: { name: string; set: boolean }[] };
    expect(report.pricing).toBeNull();
    expect(report.env).toContainEqual(
      expect.objectContaining({ name: "OPENAI_COMPATIBLE_BASE_URL", set: true }),
    );
    expect(unknown.stdout).not.toContain("localhost:11434");

    // Spawned: the `models` family's end-to-end run of the binary.
    const bad = await runCli(["models", "--model", "gemini-2.5-flash"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('model "gemini-2.5-flash" has no provider; write <provider>:<model>');
  });
});
