import { createRequire } from "node:module";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type * as AmazonBedrockPackage from "@ai-sdk/amazon-bedrock";
import type * as AzurePackage from "@ai-sdk/azure";
import type * as CoherePackage from "@ai-sdk/cohere";
import type * as DeepSeekPackage from "@ai-sdk/deepseek";
import type * as FireworksPackage from "@ai-sdk/fireworks";
import type * as GooglePackage from "@ai-sdk/google";
import type * as GoogleVertexPackage from "@ai-sdk/google-vertex";
import type * as GroqPackage from "@ai-sdk/groq";
import type * as MistralPackage from "@ai-sdk/mistral";
import type * as TogetherAiPackage from "@ai-sdk/togetherai";
import type * as XaiPackage from "@ai-sdk/xai";
import type * as OpenRouterPackage from "@openrouter/ai-sdk-provider";
import { ConfigError, UnknownNameError } from "../core/errors.js";
import type { PriceLookup } from "./cost.js";
import { httpFetch } from "./http-fetch.js";
import { bedrockCachesPrompts, type PromptCacheStyle } from "./prompt-cache.js";
import type { SdkEmbeddingModel, SdkLanguageModel } from "./sdk-language-model.js";

/** Where a provider reads its credentials and settings from (`process.env` unless told otherwise). */
export type ProviderEnv = Readonly<Record<string, string | undefined>>;

/**
 * The wire a provider's models speak: what `passk models` shows and what the mock LLM server imitates.
 * `openai` is Chat Completions (also Azure's, Mistral's, Groq's, xAI's, DeepSeek's, Together's, Fireworks'
 * and OpenRouter's), `openai-responses` OpenAI's Responses API, `google` Gemini's generateContent (also
 * Vertex AI's), `bedrock` Amazon Bedrock's Converse, `cohere` Cohere's v2 chat.
 */
export type ProviderProtocol = "openai" | "openai-responses" | "anthropic" | "google" | "bedrock" | "cohere";

/** An environment variable a provider reads besides its key and base URL. */
export interface ProviderEnvVar {
  name: string;
  /** A credential is a secret: never printed, and removed from every error text. */
  kind: "credential" | "setting";
  /** What it holds, e.g. `AWS region (e.g. us-east-1)`. */
  description: string;
}

/** The npm package whose factory builds a provider's models. */
export interface ProviderPackage {
  name: string;
  /** The major version passk is written against (its AI SDK provider specification v3 line). */
  major: number;
  /**
   * An optional peer dependency, loaded on first use by {@link loadProviderPackage}; false for the
   * packages passk depends on itself (openai, anthropic, openai-compatible).
   */
  optional: boolean;
}

/** Everything passk needs to know about one provider: where its settings come from and how to build a model. */
export interface ProviderDefinition {
  /** The `<provider>` of `<provider>:<model>`. */
  id: string;
  package: ProviderPackage;
  /** Environment variable holding the API key. */
  apiKeyEnv: string;
  apiKeyRequired: boolean;
  /** What the key is, when it is not a plain API key (e.g. `Bedrock API key (bearer token)`). */
  apiKeyDescription?: string;
  /** Environment variable with a base URL used when no `--*-llm-base-url` is given. */
  baseUrlEnv: string;
  /**
   * Used when neither flag nor variable gives a base URL; a function when it is built from other
   * variables (a region, a resource name); absent or undefined means a base URL is required.
   */
  defaultBaseUrl?: string | ((env: ProviderEnv) => string | undefined);
  /** How to get a base URL without the flag, when {@link defaultBaseUrl} needs variables: `set AWS_REGION`. */
  baseUrlHint?: string;
  /** Further variables the provider reads: other credentials (secrets), a region, a project… */
  extraEnv?: readonly ProviderEnvVar[];
  /** For credentials beyond one key: the sentence saying what is missing, or undefined when they are complete. */
  missingCredentials?(env: ProviderEnv): string | undefined;
  /** What to check when the provider refuses the credentials; default: the key's variable. */
  credentialsHint?: string;
  /** See {@link ProviderProtocol}. */
  protocol: ProviderProtocol;
  /**
   * How an earlier tool call's arguments go back to the model. `text`: the text the model wrote, a
   * malformed call as is and floats as floats (`2.0`) — for packages that send a string as it is
   * (@ai-sdk/openai, @ai-sdk/openai-compatible). `object`: the parsed arguments, `{}` for
   * a malformed call — for wires that need an object (Anthropic, Gemini, Bedrock) and for packages that
   * JSON-encode whatever they are given (Mistral, Groq, xAI, DeepSeek, Cohere, Together, Fireworks,
   * OpenRouter: a string would reach the model as a quoted string) or replace it with `{}` (Azure).
   */
  toolArguments: "text" | "object";
  /** Key under which provider options (e.g. `reasoningEffort`) go; undefined if reasoning_effort is unsupported. */
  reasoningEffortKey?: string;
  /** The reasoning_effort values the provider accepts, when it checks them (others fail before any call). */
  reasoningEfforts?: readonly string[];
  /** The key of `provider_options` the provider's package reads; default: the id. */
  providerOptionsKey?: string;
  /**
   * Which explicit prompt-cache markers a model of this provider takes, if any (see
   * {@link PromptCacheStyle}); absent for providers that cache on their own or not at all.
   */
  promptCache?(model: string): PromptCacheStyle | undefined;
  /** Where the price table looks this provider's models up. */
  priceLookup(baseUrl: string): PriceLookup;
  createModel(
    model: string,
    settings: { apiKey?: string; baseUrl: string; env: ProviderEnv },
  ): SdkLanguageModel;
  /** The provider's embedding model, for the providers `createTextEmbedder` serves. */
  createEmbeddingModel?(model: string, settings: { apiKey?: string; baseUrl: string }): SdkEmbeddingModel;
}

/** A value you build and pass around; nothing is registered globally. */
export interface ProviderRegistry {
  readonly ids: readonly string[];
  /** Throws UnknownNameError listing the known providers. */
  get(id: string): ProviderDefinition;
}

export function createProviderRegistry(definitions: readonly ProviderDefinition[]): ProviderRegistry {
  const byId = new Map(definitions.map((definition) => [definition.id, definition]));
  if (byId.size !== definitions.length) throw new RangeError("createProviderRegistry: duplicate provider id");
  const ids = [...byId.keys()];
  return {
    ids,
    get(id) {
      const definition = byId.get(id);
      if (!definition) throw new UnknownNameError("provider", id, ids);
      return definition;
    },
  };
}

/** A provider's variable as `passk models` lists it. */
export interface ProviderEnvListing {
  name: string;
  kind: "credential" | "base-url" | "setting";
  description: string;
  required: boolean;
}

/** Every environment variable a provider reads: its key, its base URL, then the others. */
export function providerEnvVars(definition: ProviderDefinition): ProviderEnvListing[] {
  const baseUrlDefault =
    typeof definition.defaultBaseUrl === "string"
      ? ` (default ${definition.defaultBaseUrl})`
      : definition.baseUrlHint !== undefined
        ? " (else built from the settings below)"
        : " (required: a local or hosted server)";
  return [
    {
      name: definition.apiKeyEnv,
      kind: "credential",
      description:
        definition.apiKeyDescription ??
        (definition.apiKeyRequired ? "API key" : "API key, if the server needs one"),
      required: definition.apiKeyRequired,
    },
    {
      name: definition.baseUrlEnv,
      kind: "base-url",
      description: `base URL${baseUrlDefault}`,
      required: definition.defaultBaseUrl === undefined && definition.baseUrlHint === undefined,
    },
    ...(definition.extraEnv ?? []).map((variable) => ({ ...variable, required: false })),
  ];
}

/** A variable's value with blanks trimmed, or undefined when it is unset or blank. */
export function envValue(env: ProviderEnv, name: string): string | undefined {
  const trimmed = env[name]?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

/**
 * Provider packages are loaded with `require`, synchronously, on first use.
 *
 * Why optional: passk's own install (the AI SDK with its OpenAI, Anthropic and OpenAI-compatible
 * providers) is about 33 MB of node_modules; the twelve further provider packages add about 82 MB, most
 * of it Vertex's google-auth-library (+31 MB) and Bedrock's AWS event-stream and signing code (+22 MB).
 * They are optional peer dependencies, so a team pays only for the providers it uses.
 *
 * Why `require`: `createLanguageModel` is synchronous (every configuration problem is raised where a spec
 * is read, before any call), and every one of these packages ships a CommonJS build beside its ES module
 * one (`exports["."].require`). AI SDK errors are recognised by a global symbol, so the CommonJS copies'
 * errors are classified exactly as the ES module copies' are.
 */
const requireFromHere = createRequire(import.meta.url);

/** Whether a provider's package is there, and its version. */
export type ProviderPackageStatus =
  { installed: false } | { installed: true; version: string; compatible: boolean };

export function providerPackageStatus(pkg: Pick<ProviderPackage, "name" | "major">): ProviderPackageStatus {
  let version: unknown;
  try {
    version = (requireFromHere(`${pkg.name}/package.json`) as { version?: unknown }).version;
  } catch {
    return { installed: false };
  }
  const text = typeof version === "string" ? version : "unknown";
  return { installed: true, version: text, compatible: Number(text.split(".")[0]) === pkg.major };
}

/** `npm install <name>@<major>`: the one command that makes a provider usable. */
export function installCommand(pkg: Pick<ProviderPackage, "name" | "major">): string {
  return `npm install ${pkg.name}@${pkg.major}`;
}

/**
 * Loads a provider's package, or throws a ConfigError saying which package to install. Node caches
 * the module, so this costs a lookup after the first call.
 *
 * @example
 * const { createGoogleGenerativeAI } = loadProviderPackage<typeof import("@ai-sdk/google")>("google", pkg);
 */
export function loadProviderPackage<T>(providerId: string, pkg: Pick<ProviderPackage, "name" | "major">): T {
  const status = providerPackageStatus(pkg);
  if (!status.installed) {
    throw new ConfigError(
      `the ${providerId} provider needs the package ${pkg.name}@${pkg.major}: ${installCommand(pkg)}`,
    );
  }
  if (!status.compatible) {
    throw new ConfigError(
      `the ${providerId} provider needs ${pkg.name}@${pkg.major} (AI SDK 6) but ${status.version} is installed: ` +
        installCommand(pkg),
    );
  }
  try {
    return requireFromHere(pkg.name) as T;
  } catch (error) {
    throw new ConfigError(
      `the ${providerId} provider's package ${pkg.name} is installed but cannot be loaded ` +
        `(${error instanceof Error ? error.message.split("\n")[0] : String(error)}); reinstall it: ${installCommand(pkg)}`,
      { cause: error },
    );
  }
}

function optionalPackage(name: string, major: number): ProviderPackage {
  return { name, major, optional: true };
}

/** A Vertex AI base URL, as @ai-sdk/google-vertex builds it from a project and a location. */
function vertexBaseUrl(env: ProviderEnv): string | undefined {
  if (envValue(env, "GOOGLE_VERTEX_API_KEY") !== undefined)
    return "https://aiplatform.googleapis.com/v1/publishers/google";
  const project = envValue(env, "GOOGLE_VERTEX_PROJECT");
  const location = envValue(env, "GOOGLE_VERTEX_LOCATION");
  if (project === undefined || location === undefined) return undefined;
  const host =
    location === "global"
      ? "aiplatform.googleapis.com"
      : location === "eu" || location === "us"
        ? `aiplatform.${location}.rep.googleapis.com`
        : `${location}-aiplatform.googleapis.com`;
  return `https://${host}/v1beta1/projects/${project}/locations/${location}/publishers/google`;
}

/**
 * A google-auth-library failure (no Application Default Credentials, a revoked grant) is a configuration
 * problem, not the provider's fault: it is raised as a ConfigError so it stops the run instead of
 * ending every conversation as an infrastructure error.
 */
function withAuthErrorsAsConfig(model: SdkLanguageModel, label: string): SdkLanguageModel {
  const mapped = (error: unknown): unknown =>
    error instanceof Error &&
    /default credentials|invalid_grant|unauthorized_client|invalid_client/i.test(error.message)
      ? new ConfigError(
          `${label}: Google Cloud authentication failed (${error.message.split("\n")[0]}); set GOOGLE_APPLICATION_CREDENTIALS ` +
            "to a service-account key file, run `gcloud auth application-default login`, or set GOOGLE_VERTEX_API_KEY",
          { cause: error },
        )
      : error;
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },
    doGenerate: async (options) => {
      try {
        return await model.doGenerate(options);
      } catch (error) {
        throw mapped(error);
      }
    },
    doStream: async (options) => {
      try {
        return await model.doStream(options);
      } catch (error) {
        throw mapped(error);
      }
    },
  };
}

/**
 * Every provider passk knows, keyed by the `<provider>` of `<provider>:<model>`: `openai` (Chat
 * Completions — the API τ²-bench calls through litellm), `openai-responses` (OpenAI's Responses API),
 * `anthropic` (Messages) and `openai-compatible` (any Chat Completions server: Ollama, vLLM, LM Studio,
 * LiteLLM), which passk depends on; and, each from its own optional package (see
 * {@link loadProviderPackage}), `google`, `google-vertex`, `azure`, `amazon-bedrock`, `mistral`, `groq`,
 * `xai`, `deepseek`, `togetherai`, `fireworks`, `cohere` and `openrouter`.
 *
 * Keys, regions and base URLs are always passed explicitly, so the SDK never reads `process.env` itself
 * (the one exception: Vertex's Application Default Credentials, which google-auth-library finds on its
 * own — GOOGLE_APPLICATION_CREDENTIALS, gcloud's login, or the metadata server of a Google Cloud
 * machine). Every factory gets `fetch: httpFetch`: plain-http base URLs (local servers, mock models) are
 * called through node:http, cheaper per call than fetch, and every answer is capped in size.
 */
export function defaultProviderDefinitions(): ProviderDefinition[] {
  return [
    {
      id: "openai",
      package: { name: "@ai-sdk/openai", major: 3, optional: false },
      apiKeyEnv: "OPENAI_API_KEY",
      apiKeyRequired: true,
      baseUrlEnv: "OPENAI_BASE_URL",
      defaultBaseUrl: "https://api.openai.com/v1",
      protocol: "openai",
      toolArguments: "text",
      reasoningEffortKey: "openai",
      priceLookup: () => ({ providerId: "openai" }),
      createModel: (model, { apiKey, baseUrl }) =>
        createOpenAI({ apiKey, baseURL: baseUrl, fetch: httpFetch }).chat(model),
      createEmbeddingModel: (model, { apiKey, baseUrl }) =>
        createOpenAI({ apiKey, baseURL: baseUrl, fetch: httpFetch }).embeddingModel(model),
    },
    {
      // The same models and key as `openai`, through the Responses API (`POST /v1/responses`).
      id: "openai-responses",
      package: { name: "@ai-sdk/openai", major: 3, optional: false },
      apiKeyEnv: "OPENAI_API_KEY",
      apiKeyRequired: true,
      baseUrlEnv: "OPENAI_BASE_URL",
      defaultBaseUrl: "https://api.openai.com/v1",
      protocol: "openai-responses",
      toolArguments: "text",
      reasoningEffortKey: "openai",
      providerOptionsKey: "openai",
      priceLookup: () => ({ providerId: "openai" }),
      createModel: (model, { apiKey, baseUrl }) =>
        createOpenAI({ apiKey, baseURL: baseUrl, fetch: httpFetch }).responses(model),
    },
    {
      id: "anthropic",
      package: { name: "@ai-sdk/anthropic", major: 3, optional: false },
      apiKeyEnv: "ANTHROPIC_API_KEY",
      apiKeyRequired: true,
      baseUrlEnv: "ANTHROPIC_BASE_URL",
      defaultBaseUrl: "https://api.anthropic.com/v1",
      protocol: "anthropic",
      toolArguments: "object",
      promptCache: () => "anthropic",
      priceLookup: () => ({ providerId: "anthropic" }),
      createModel: (model, { apiKey, baseUrl }) =>
        createAnthropic({ apiKey, baseURL: baseUrl, fetch: httpFetch }).messages(model),
    },
    {
      id: "openai-compatible",
      package: { name: "@ai-sdk/openai-compatible", major: 2, optional: false },
      apiKeyEnv: "OPENAI_COMPATIBLE_API_KEY",
      apiKeyRequired: false,
      baseUrlEnv: "OPENAI_COMPATIBLE_BASE_URL",
      protocol: "openai",
      toolArguments: "text",
      reasoningEffortKey: "openaiCompatible",
      providerOptionsKey: "openaiCompatible",
      // Known hosted APIs (OpenRouter, Together, Groq…) are recognised by URL; a local server has no price.
      priceLookup: (baseUrl) => ({ providerApiUrl: baseUrl }),
      createModel: (model, { apiKey, baseUrl }) =>
        createOpenAICompatible({
          name: "openaiCompatible",
          baseURL: baseUrl,
          apiKey,
          includeUsage: true,
          fetch: httpFetch,
        }).chatModel(model),
      createEmbeddingModel: (model, { apiKey, baseUrl }) =>
        createOpenAICompatible({
          name: "openaiCompatible",
          baseURL: baseUrl,
          apiKey,
          fetch: httpFetch,
        }).embeddingModel(model),
    },
    {
      // Gemini through the Gemini API (Google AI Studio keys).
      id: "google",
      package: optionalPackage("@ai-sdk/google", 3),
      apiKeyEnv: "GOOGLE_GENERATIVE_AI_API_KEY",
      apiKeyRequired: true,
      baseUrlEnv: "GOOGLE_GENERATIVE_AI_BASE_URL",
      defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta",
      protocol: "google",
      toolArguments: "object",
      // Gemini's reasoning is `thinkingConfig`: pass it through provider_options.google.
      priceLookup: () => ({ providerId: "google" }),
      createModel: (model, { apiKey, baseUrl }) => {
        const { createGoogleGenerativeAI } = loadProviderPackage<typeof GooglePackage>(
          "google",
          optionalPackage("@ai-sdk/google", 3),
        );
        return createGoogleGenerativeAI({ apiKey, baseURL: baseUrl, fetch: httpFetch }).chat(model);
      },
    },
    {
      // Gemini on Vertex AI: an express-mode API key, or Google Cloud's Application Default Credentials
      // (google-auth-library: GOOGLE_APPLICATION_CREDENTIALS, `gcloud auth application-default login`, or
      // the metadata server) with a project and a location.
      id: "google-vertex",
      package: optionalPackage("@ai-sdk/google-vertex", 4),
      apiKeyEnv: "GOOGLE_VERTEX_API_KEY",
      apiKeyRequired: false,
      apiKeyDescription: "express-mode API key (else Application Default Credentials)",
      baseUrlEnv: "GOOGLE_VERTEX_BASE_URL",
      defaultBaseUrl: vertexBaseUrl,
      baseUrlHint: "set GOOGLE_VERTEX_PROJECT and GOOGLE_VERTEX_LOCATION (e.g. us-central1)",
      extraEnv: [
        { name: "GOOGLE_VERTEX_PROJECT", kind: "setting", description: "Google Cloud project id" },
        {
          name: "GOOGLE_VERTEX_LOCATION",
          kind: "setting",
          description: "location (e.g. us-central1, global)",
        },
        {
          name: "GOOGLE_APPLICATION_CREDENTIALS",
          kind: "setting",
          description: "service-account key file (else gcloud's login; read by google-auth-library)",
        },
      ],
      // Without an express-mode key the package reads a project and a location, whatever the base URL.
      missingCredentials: (env) =>
        envValue(env, "GOOGLE_VERTEX_API_KEY") === undefined &&
        (envValue(env, "GOOGLE_VERTEX_PROJECT") === undefined ||
          envValue(env, "GOOGLE_VERTEX_LOCATION") === undefined)
          ? "google-vertex needs GOOGLE_VERTEX_PROJECT and GOOGLE_VERTEX_LOCATION (e.g. us-central1) with Google Cloud's " +
            "Application Default Credentials, or GOOGLE_VERTEX_API_KEY for express mode: export them"
          : undefined,
      credentialsHint:
        "GOOGLE_VERTEX_API_KEY, or the Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS or " +
        "`gcloud auth application-default login`)",
      protocol: "google",
      toolArguments: "object",
      providerOptionsKey: "vertex",
      priceLookup: () => ({ providerId: "google" }),
      createModel: (model, { apiKey, baseUrl, env }) => {
        const { createVertex } = loadProviderPackage<typeof GoogleVertexPackage>(
          "google-vertex",
          optionalPackage("@ai-sdk/google-vertex", 4),
        );
        const project = envValue(env, "GOOGLE_VERTEX_PROJECT");
        const location = envValue(env, "GOOGLE_VERTEX_LOCATION");
        const keyFilename = envValue(env, "GOOGLE_APPLICATION_CREDENTIALS");
        const sdkModel = createVertex({
          // An empty key (never undefined) keeps the package from reading GOOGLE_VERTEX_API_KEY itself.
          apiKey: apiKey ?? "",
          ...(project !== undefined ? { project } : {}),
          ...(location !== undefined ? { location } : {}),
          ...(keyFilename !== undefined ? { googleAuthOptions: { keyFilename } } : {}),
          baseURL: baseUrl,
          fetch: httpFetch,
        }).languageModel(model);
        return apiKey !== undefined ? sdkModel : withAuthErrorsAsConfig(sdkModel, `google-vertex:${model}`);
      },
    },
    {
      // Azure OpenAI: the model is the deployment's name; Chat Completions, as `openai`.
      id: "azure",
      package: optionalPackage("@ai-sdk/azure", 3),
      apiKeyEnv: "AZURE_API_KEY",
      apiKeyRequired: true,
      baseUrlEnv: "AZURE_BASE_URL",
      defaultBaseUrl: (env) => {
        const resource = envValue(env, "AZURE_RESOURCE_NAME");
        return resource === undefined ? undefined : `https://${resource}.openai.azure.com/openai`;
      },
      baseUrlHint: "set AZURE_RESOURCE_NAME (your Azure OpenAI resource's name)",
      extraEnv: [{ name: "AZURE_RESOURCE_NAME", kind: "setting", description: "Azure OpenAI resource name" }],
      protocol: "openai",
      // @ai-sdk/azure pins an @ai-sdk/openai whose Chat Completions encoder sends `{}` for any text.
      toolArguments: "object",
      reasoningEffortKey: "openai",
      providerOptionsKey: "openai",
      priceLookup: () => ({ providerId: "azure" }),
      createModel: (model, { apiKey, baseUrl }) => {
        const { createAzure } = loadProviderPackage<typeof AzurePackage>(
          "azure",
          optionalPackage("@ai-sdk/azure", 3),
        );
        return createAzure({ apiKey, baseURL: baseUrl, fetch: httpFetch }).chat(model);
      },
    },
    {
      // Bedrock's Converse API: a Bedrock API key (bearer token), or an access key pair signed with SigV4.
      // The AWS SDK's other sources (profiles, SSO, instance roles) are not read.
      id: "amazon-bedrock",
      package: optionalPackage("@ai-sdk/amazon-bedrock", 4),
      apiKeyEnv: "AWS_BEARER_TOKEN_BEDROCK",
      apiKeyRequired: false,
      apiKeyDescription: "Bedrock API key (else the access key pair)",
      baseUrlEnv: "AWS_BEDROCK_BASE_URL",
      defaultBaseUrl: (env) => {
        const region = envValue(env, "AWS_REGION");
        return region === undefined ? undefined : `https://bedrock-runtime.${region}.amazonaws.com`;
      },
      baseUrlHint: "set AWS_REGION (e.g. us-east-1)",
      extraEnv: [
        { name: "AWS_REGION", kind: "setting", description: "AWS region (e.g. us-east-1)" },
        { name: "AWS_ACCESS_KEY_ID", kind: "credential", description: "access key id (SigV4)" },
        { name: "AWS_SECRET_ACCESS_KEY", kind: "credential", description: "secret access key (SigV4)" },
        { name: "AWS_SESSION_TOKEN", kind: "credential", description: "session token (temporary keys)" },
      ],
      missingCredentials: (env) => {
        if (envValue(env, "AWS_BEARER_TOKEN_BEDROCK") !== undefined) return undefined;
        const keyId = envValue(env, "AWS_ACCESS_KEY_ID") !== undefined;
        const secret = envValue(env, "AWS_SECRET_ACCESS_KEY") !== undefined;
        if (!keyId && !secret) {
          return (
            "amazon-bedrock needs credentials: export AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key), " +
            "or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys)"
          );
        }
        if (!keyId || !secret) {
          return `amazon-bedrock has ${keyId ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY"} but not ${
            keyId ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID"
          }: export both (or AWS_BEARER_TOKEN_BEDROCK instead)`;
        }
        if (envValue(env, "AWS_REGION") === undefined) {
          return "amazon-bedrock signs its requests for a region: export AWS_REGION (e.g. us-east-1)";
        }
        return undefined;
      },
      credentialsHint:
        "AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN",
      protocol: "bedrock",
      toolArguments: "object",
      providerOptionsKey: "bedrock",
      promptCache: (model) => (bedrockCachesPrompts(model) ? "bedrock" : undefined),
      priceLookup: () => ({ providerId: "aws" }),
      createModel: (model, { apiKey, baseUrl, env }) => {
        const { createAmazonBedrock } = loadProviderPackage<typeof AmazonBedrockPackage>(
          "amazon-bedrock",
          optionalPackage("@ai-sdk/amazon-bedrock", 4),
        );
        const region = envValue(env, "AWS_REGION");
        const accessKeyId = envValue(env, "AWS_ACCESS_KEY_ID") ?? "";
        const secretAccessKey = envValue(env, "AWS_SECRET_ACCESS_KEY") ?? "";
        const sessionToken = envValue(env, "AWS_SESSION_TOKEN");
        return createAmazonBedrock({
          // An empty key (never undefined) keeps the package from reading AWS_BEARER_TOKEN_BEDROCK itself;
          // the credential provider keeps it from reading the AWS_* keys.
          apiKey: apiKey ?? "",
          ...(region !== undefined ? { region } : {}),
          credentialProvider: async () => ({
            accessKeyId,
            secretAccessKey,
            ...(sessionToken !== undefined ? { sessionToken } : {}),
          }),
          baseURL: baseUrl,
          fetch: httpFetch,
        })(model);
      },
    },
    {
      id: "mistral",
      package: optionalPackage("@ai-sdk/mistral", 3),
      apiKeyEnv: "MISTRAL_API_KEY",
      apiKeyRequired: true,
      baseUrlEnv: "MISTRAL_BASE_URL",
      defaultBaseUrl: "https://api.mistral.ai/v1",
      protocol: "openai",
      toolArguments: "object",
      reasoningEffortKey: "mistral",
      reasoningEfforts: ["none", "high"],
      priceLookup: () => ({ providerId: "mistral" }),
      createModel: (model, { apiKey, baseUrl }) => {
        const { createMistral } = loadProviderPackage<typeof MistralPackage>(
          "mistral",
          optionalPackage("@ai-sdk/mistral", 3),
        );
        return createMistral({ apiKey, baseURL: baseUrl, fetch: httpFetch }).chat(model);
      },
    },
    {
      id: "groq",
      package: optionalPackage("@ai-sdk/groq", 3),
      apiKeyEnv: "GROQ_API_KEY",
      apiKeyRequired: true,
      baseUrlEnv: "GROQ_BASE_URL",
      defaultBaseUrl: "https://api.groq.com/openai/v1",
      protocol: "openai",
      toolArguments: "object",
      reasoningEffortKey: "groq",
      reasoningEfforts: ["none", "default", "low", "medium", "high"],
      priceLookup: () => ({ providerId: "groq" }),
      createModel: (model, { apiKey, baseUrl }) => {
        const { createGroq } = loadProviderPackage<typeof GroqPackage>(
          "groq",
          optionalPackage("@ai-sdk/groq", 3),
        );
        return createGroq({ apiKey, baseURL: baseUrl, fetch: httpFetch }).languageModel(model);
      },
    },
    {
      id: "xai",
      package: optionalPackage("@ai-sdk/xai", 3),
      apiKeyEnv: "XAI_API_KEY",
      apiKeyRequired: true,
      baseUrlEnv: "XAI_BASE_URL",
      defaultBaseUrl: "https://api.x.ai/v1",
      protocol: "openai",
      toolArguments: "object",
      reasoningEffortKey: "xai",
      reasoningEfforts: ["none", "low", "medium", "high", "xhigh"],
      priceLookup: () => ({ providerId: "x-ai" }),
      createModel: (model, { apiKey, baseUrl }) => {
        const { createXai } = loadProviderPackage<typeof XaiPackage>(
          "xai",
          optionalPackage("@ai-sdk/xai", 3),
        );
        return createXai({ apiKey, baseURL: baseUrl, fetch: httpFetch }).chat(model);
      },
    },
    {
      id: "deepseek",
      package: optionalPackage("@ai-sdk/deepseek", 2),
      apiKeyEnv: "DEEPSEEK_API_KEY",
      apiKeyRequired: true,
      baseUrlEnv: "DEEPSEEK_BASE_URL",
      defaultBaseUrl: "https://api.deepseek.com",
      protocol: "openai",
      toolArguments: "object",
      reasoningEffortKey: "deepseek",
      reasoningEfforts: ["low", "medium", "high", "xhigh", "max"],
      priceLookup: () => ({ providerId: "deepseek" }),
      createModel: (model, { apiKey, baseUrl }) => {
        const { createDeepSeek } = loadProviderPackage<typeof DeepSeekPackage>(
          "deepseek",
          optionalPackage("@ai-sdk/deepseek", 2),
        );
        return createDeepSeek({ apiKey, baseURL: baseUrl, fetch: httpFetch }).chat(model);
      },
    },
    {
      id: "togetherai",
      package: optionalPackage("@ai-sdk/togetherai", 2),
      apiKeyEnv: "TOGETHER_API_KEY",
      apiKeyRequired: true,
      baseUrlEnv: "TOGETHER_BASE_URL",
      defaultBaseUrl: "https://api.together.xyz/v1",
      protocol: "openai",
      toolArguments: "object",
      reasoningEffortKey: "openaiCompatible",
      providerOptionsKey: "togetherai",
      priceLookup: () => ({ providerId: "together" }),
      createModel: (model, { apiKey, baseUrl }) => {
        const { createTogetherAI } = loadProviderPackage<typeof TogetherAiPackage>(
          "togetherai",
          optionalPackage("@ai-sdk/togetherai", 2),
        );
        return createTogetherAI({ apiKey, baseURL: baseUrl, fetch: httpFetch }).chatModel(model);
      },
    },
    {
      id: "fireworks",
      package: optionalPackage("@ai-sdk/fireworks", 2),
      apiKeyEnv: "FIREWORKS_API_KEY",
      apiKeyRequired: true,
      baseUrlEnv: "FIREWORKS_BASE_URL",
      defaultBaseUrl: "https://api.fireworks.ai/inference/v1",
      protocol: "openai",
      toolArguments: "object",
      reasoningEffortKey: "openaiCompatible",
      priceLookup: () => ({ providerId: "fireworks" }),
      createModel: (model, { apiKey, baseUrl }) => {
        const { createFireworks } = loadProviderPackage<typeof FireworksPackage>(
          "fireworks",
          optionalPackage("@ai-sdk/fireworks", 2),
        );
        return createFireworks({ apiKey, baseURL: baseUrl, fetch: httpFetch }).chatModel(model);
      },
    },
    {
      id: "cohere",
      package: optionalPackage("@ai-sdk/cohere", 3),
      apiKeyEnv: "COHERE_API_KEY",
      apiKeyRequired: true,
      baseUrlEnv: "COHERE_BASE_URL",
      defaultBaseUrl: "https://api.cohere.com/v2",
      protocol: "cohere",
      toolArguments: "object",
      priceLookup: () => ({ providerId: "cohere" }),
      createModel: (model, { apiKey, baseUrl }) => {
        const { createCohere } = loadProviderPackage<typeof CoherePackage>(
          "cohere",
          optionalPackage("@ai-sdk/cohere", 3),
        );
        return createCohere({ apiKey, baseURL: baseUrl, fetch: httpFetch }).languageModel(model);
      },
    },
    {
      // Reasoning on OpenRouter is provider_options {"openrouter": {"reasoning": {"effort": "high"}}}.
      id: "openrouter",
      package: optionalPackage("@openrouter/ai-sdk-provider", 2),
      apiKeyEnv: "OPENROUTER_API_KEY",
      apiKeyRequired: true,
      baseUrlEnv: "OPENROUTER_BASE_URL",
      defaultBaseUrl: "https://openrouter.ai/api/v1",
      protocol: "openai",
      toolArguments: "object",
      priceLookup: () => ({ providerId: "openrouter" }),
      createModel: (model, { apiKey, baseUrl }) => {
        const { createOpenRouter } = loadProviderPackage<typeof OpenRouterPackage>(
          "openrouter",
          optionalPackage("@openrouter/ai-sdk-provider", 2),
        );
        return createOpenRouter({ apiKey, baseURL: baseUrl, fetch: httpFetch, compatibility: "strict" }).chat(
          model,
        );
      },
    },
  ];
}

export function createDefaultProviderRegistry(): ProviderRegistry {
  return createProviderRegistry(defaultProviderDefinitions());
}
