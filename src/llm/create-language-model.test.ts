import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, PasskError } from "../core/errors.js";
import { InfrastructureError } from "../core/llm.js";
import { mockReply, startMockLlmServer, type MockLlmServer } from "../testing/index.js";
import { createLanguageModel } from "./create-language-model.js";
import {
  createProviderRegistry,
  defaultProviderDefinitions,
  type ProviderDefinition,
} from "./provider-registry.js";

const HELLO = { system: "s", messages: [{ role: "user" as const, content: "Hi" }] };
const FAST = { initialDelayMs: 1, jitter: 0 };

let server: MockLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function configError(build: () => unknown): string {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("createLanguageModel configuration", () => {
  it("refuses a missing API key before any call, naming the variable and the way out", () => {
    expect(configError(() => createLanguageModel("openai:gpt-4o", { env: {} }))).toBe(
      "OPENAI_API_KEY is not set: export it, or use openai-compatible:<model> with --agent-llm-base-url",
    );
    expect(
      configError(() =>
        createLanguageModel("anthropic:claude-sonnet-4-5", { env: { ANTHROPIC_API_KEY: " " }, role: "user" }),
      ),
    ).toBe(
      "ANTHROPIC_API_KEY is not set: export it, or use openai-compatible:<model> with --user-llm-base-url",
    );
  });

  it("needs a base URL for openai-compatible, from the flag or OPENAI_COMPATIBLE_BASE_URL; the key is optional", () => {
    expect(
      configError(() => createLanguageModel("openai-compatible:qwen3:8b", { env: {}, role: "judge" })),
    ).toBe(
      "openai-compatible:qwen3:8b needs a base URL: pass --judge-llm-base-url (e.g. http://localhost:11434/v1 for Ollama) " +
        "or set OPENAI_COMPATIBLE_BASE_URL",
    );
    const model = createLanguageModel("openai-compatible:qwen3:8b", {
      env: { OPENAI_COMPATIBLE_BASE_URL: "http://localhost:11434/v1" },
    });
    expect(model.spec).toBe("openai-compatible:qwen3:8b");
    expect(
      configError(() => createLanguageModel("openai-compatible:m", { env: {}, baseUrl: "localhost:1234" })),
    ).toMatch(/--agent-llm-base-url "localhost:1234" is not an http\(s\) URL/);
  });

  it("reports bad --*-llm-args and unsupported settings under the role's flag", () => {
    expect(
      configError(() =>
        createLanguageModel("openai-compatible:m", {
          env: {},
          baseUrl: "http://x/v1",
          role: "user",
          args: "{",
        }),
      ),
    ).toMatch(/^--user-llm-args is not valid JSON/);
    expect(
      configError(() =>
        createLanguageModel("anthropic:claude-sonnet-4-5", {
          env: { ANTHROPIC_API_KEY: "k-123456" },
          args: { reasoning_effort: "high" },
        }),
      ),
    ).toMatch(/^--agent-llm-args: reasoning_effort is not supported by the anthropic provider/);
  });

  it("says which credentials and settings the other providers lack, naming the variables", () => {
    expect(configError(() => createLanguageModel("amazon-bedrock:amazon.nova-pro-v1:0", { env: {} }))).toBe(
      "amazon-bedrock needs credentials: export AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key), " +
        "or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys)",
    );
    expect(
      configError(() =>
        createLanguageModel("amazon-bedrock:amazon.nova-pro-v1:0", {
          env: { AWS_ACCESS_KEY_ID: "AKIA0123" },
        }),
      ),
    ).toBe(
      "amazon-bedrock has AWS_ACCESS_KEY_ID but not AWS_SECRET_ACCESS_KEY: export both (or AWS_BEARER_TOKEN_BEDROCK instead)",
    );
    expect(
      configError(() =>
        createLanguageModel("amazon-bedrock:amazon.nova-pro-v1:0", {
          env: { AWS_ACCESS_KEY_ID: "AKIA0123", AWS_SECRET_ACCESS_KEY: "s-0123456789" },
        }),
      ),
    ).toBe("amazon-bedrock signs its requests for a region: export AWS_REGION (e.g. us-east-1)");
    expect(
      configError(() =>
        createLanguageModel("amazon-bedrock:amazon.nova-pro-v1:0", {
          env: { AWS_BEARER_TOKEN_BEDROCK: "b-0123" },
        }),
      ),
    ).toBe(
      "amazon-bedrock:amazon.nova-pro-v1:0 needs a base URL: set AWS_REGION (e.g. us-east-1), " +
        "or pass --agent-llm-base-url or set AWS_BEDROCK_BASE_URL",
    );
    expect(
      configError(() =>
        createLanguageModel("azure:gpt-4o", { env: { AZURE_API_KEY: "az-0123" }, role: "user" }),
      ),
    ).toBe(
      "azure:gpt-4o needs a base URL: set AZURE_RESOURCE_NAME (your Azure OpenAI resource's name), " +
        "or pass --user-llm-base-url or set AZURE_BASE_URL",
    );
    expect(
      configError(() =>
        createLanguageModel("google-vertex:gemini-2.5-flash", {
          env: { GOOGLE_VERTEX_PROJECT: "my-project" },
        }),
      ),
    ).toBe(
      "google-vertex needs GOOGLE_VERTEX_PROJECT and GOOGLE_VERTEX_LOCATION (e.g. us-central1) with Google Cloud's " +
        "Application Default Credentials, or GOOGLE_VERTEX_API_KEY for express mode: export them",
    );
    expect(configError(() => createLanguageModel("google:gemini-2.5-flash", { env: {} }))).toBe(
      "GOOGLE_GENERATIVE_AI_API_KEY is not set: export it, or use openai-compatible:<model> with --agent-llm-base-url",
    );
  });

  it("builds base URLs from a region, a resource name or a project and location", () => {
    const seen: string[] = [];
    const registry = createProviderRegistry(
      defaultProviderDefinitions().map((definition) => ({
        ...definition,
        createModel: (model: string, settings: Parameters<ProviderDefinition["createModel"]>[1]) => {
          seen.push(settings.baseUrl);
          return definition.createModel(model, settings);
        },
      })),
    );
    createLanguageModel("amazon-bedrock:amazon.nova-pro-v1:0", {
      registry,
      env: { AWS_ACCESS_KEY_ID: "AKIA0123", AWS_SECRET_ACCESS_KEY: "s-0123456789", AWS_REGION: "eu-west-3" },
    });
    createLanguageModel("azure:gpt-4o", {
      registry,
      env: { AZURE_API_KEY: "az-0123", AZURE_RESOURCE_NAME: "acme" },
    });
    createLanguageModel("google-vertex:gemini-2.5-flash", {
      registry,
      env: { GOOGLE_VERTEX_PROJECT: "my-project", GOOGLE_VERTEX_LOCATION: "europe-west4" },
    });
    createLanguageModel("google-vertex:gemini-2.5-flash", {
      registry,
      env: { GOOGLE_VERTEX_API_KEY: "v-0123" },
    });
    expect(seen).toEqual([
      "https://bedrock-runtime.eu-west-3.amazonaws.com",
      "https://acme.openai.azure.com/openai",
      "https://europe-west4-aiplatform.googleapis.com/v1beta1/projects/my-project/locations/europe-west4/publishers/google",
      "https://aiplatform.googleapis.com/v1/publishers/google",
    ]);
  });

  it("checks reasoning_effort against the values a provider accepts", () => {
    expect(
      configError(() =>
        createLanguageModel("mistral:magistral-medium-latest", {
          env: { MISTRAL_API_KEY: "m-0123" },
          args: { reasoning_effort: "low" },
        }),
      ),
    ).toBe(
      '--agent-llm-args: reasoning_effort "low" is not one the mistral provider accepts; use one of none, high',
    );
    expect(
      configError(() =>
        createLanguageModel("google:gemini-2.5-flash", {
          env: { GOOGLE_GENERATIVE_AI_API_KEY: "g-0123" },
          args: { reasoning_effort: "low" },
        }),
      ),
    ).toMatch(
      /reasoning_effort is not supported by the google provider; .*\{"provider_options": \{"google": \{…\}\}\}/,
    );
  });

  it("takes its providers from an explicit registry", () => {
    const onlyLocal = createProviderRegistry(
      defaultProviderDefinitions().filter((definition) => definition.id === "openai-compatible"),
    );
    let error: unknown;
    try {
      createLanguageModel("openai:gpt-4o", { env: { OPENAI_API_KEY: "sk-0123456789" }, registry: onlyLocal });
    } catch (caught) {
      error = caught;
    }
    expect(PasskError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('provider "openai" is not known (known: openai-compatible)');
  });
});

describe("API keys", () => {
  const SECRET = "sk-live-SECRET0123456789abcdef";

  it("sends the key from env and keeps it out of every error message", async () => {
    server = await startMockLlmServer({
      script: [
        mockReply.error(500, { message: `upstream rejected Authorization: Bearer ${SECRET}` }),
        mockReply.error(500, { body: `{"error": {"message": "bad key ${SECRET}"}}` }),
        mockReply.error(401, { message: `Incorrect API key provided: ${SECRET}` }),
      ],
    });
    const model = createLanguageModel("openai:gpt-4o", {
      baseUrl: server.baseUrl,
      env: { OPENAI_API_KEY: SECRET },
      retry: { ...FAST, maxAttempts: 2 },
    });
    const infrastructure = await model.generate(HELLO).catch((caught: unknown) => caught);
    const refused = await model.generate(HELLO).catch((caught: unknown) => caught);

    expect(server.requests.map((request) => request.headers.authorization)).toEqual([
      `Bearer ${SECRET}`,
      `Bearer ${SECRET}`,
      `Bearer ${SECRET}`,
    ]);
    expect(infrastructure).toBeInstanceOf(InfrastructureError);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toMatch(
      /refused the credentials \(HTTP 401: .*\); check OPENAI_API_KEY/,
    );
    for (const error of [infrastructure, refused] as Error[]) {
      const everything = [
        error.message,
        String(error.stack),
        String((error.cause as Error | undefined)?.message),
        JSON.stringify(error),
      ];
      for (const text of everything) expect(text).not.toContain(SECRET);
    }
    expect((infrastructure as Error).message).toContain("[redacted]");
  });

  it("sends an optional openai-compatible key as a bearer token, and none when unset", async () => {
    server = await startMockLlmServer({ script: [mockReply.text("a"), mockReply.text("b")] });
    await createLanguageModel("openai-compatible:m", {
      baseUrl: server.baseUrl,
      env: { OPENAI_COMPATIBLE_API_KEY: "or-key-123456" },
    }).generate(HELLO);
    await createLanguageModel("openai-compatible:m", { baseUrl: server.baseUrl, env: {} }).generate(HELLO);
    expect(server.requests[0]!.headers.authorization).toBe("Bearer or-key-123456");
    expect(server.requests[1]!.headers.authorization).toBeUndefined();
  });

  it("turns a 404 into a ConfigError about the model name and base URL", async () => {
    server = await startMockLlmServer({ script: [mockReply.error(404, { message: "model not found" })] });
    const error = await createLanguageModel("openai-compatible:nope", {
      baseUrl: server.baseUrl,
      env: {},
      retry: FAST,
    })
      .generate(HELLO)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain("check the model name and the base URL");
    expect(server.requests).toHaveLength(1);
  });
});
