import type { ScriptedReplay } from "./scripted-replay.js";
import type { ConversationAbout, ConversationTrace } from "../observability/conversation-trace.js";
import { isIP } from "node:net";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Agent, UserSimulator } from "../core/agent.js";
import type { Judge } from "../core/judge.js";
import type { PerturbationRegistry } from "../perturbations/registry.js";
import { PasskError } from "../core/errors.js";
import { systemFailure } from "../core/system-failure.js";
import type { AnyDomain } from "../env/domain.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { redactSecrets } from "../llm/redact.js";
import type { ToolOverrides } from "../env/tool-schema.js";
import type { ConversationProtocol } from "../runner/simulation-setup.js";
import type { ConversationStore } from "./conversation-store.js";
import type { ConversationLimits } from "./conversations.js";
import { createApiServices } from "./create-api-services.js";
import type { GymSessions } from "../gym/gym-sessions.js";
import { apiRoutes } from "./routes/api-routes.js";
import { gymRoutes } from "./routes/gym-routes.js";
import { MAX_JSON_BODY_BYTES } from "./routes/request-checks.js";
import type { RunCatalog } from "./run-catalog.js";
import { httpStatusOf, type RetryAfter } from "./server-errors.js";
import { serveStatic } from "./static-files.js";
import { compress } from "hono/compress";

export { MAX_JSON_BODY_BYTES };

/** How the server makes agents and simulated customers from the specs it offers. */
export interface Participants {
  /** Agent specs the browser may pick; the first is the default. */
  agents: readonly string[];
  /** User-simulator specs the browser may pick; the first is the default. */
  users: readonly string[];
  agentFor(spec: string): Agent;
  customerFor(spec: string): UserSimulator;
}

export interface ServerLimits extends ConversationLimits {
  /** Requests per client address per window on the endpoints that start or drive work. */
  rateLimitMax: number;
  rateLimitWindowMs: number;
  /** Daily model spend cap in USD (UTC days); null for none. */
  dailySpendCapUsd: number | null;
  /**
   * What a conversation is assumed to cost at most, reserved against the cap while it runs; null for the
   * cap divided by maxActive.
   */
  conversationEstimateUsd: number | null;
  /** Largest results file accepted for import. */
  maxUploadBytes: number;
  /** Results files one client address may import per hour (each grows the store by up to maxUploadBytes). */
  importsPerHour: number;
  /** Event streams one client address may hold open at once (each holds a socket and memory). */
  maxStreamsPerClient: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  rateLimitMax: 60,
  rateLimitWindowMs: 60_000,
  dailySpendCapUsd: null,
  conversationEstimateUsd: null,
  maxUploadBytes: 64 * 1024 * 1024,
  importsPerHour: 20,
  maxStreamsPerClient: 32,
  maxActive: 20,
  maxSteps: 200,
  maxErrors: 10,
  humanIdleMs: 15 * 60_000,
  retainMs: 30 * 60_000,
};

/** Everything the server uses, handed in: no global state, so tests build one per case. */
export interface ServerDeps {
  domains: ReadonlyMap<string, AnyDomain>;
  /** τ² data directory holding each domain's folder. */
  dataDir: string;
  /**
   * Loads a domain's data (parsed once); default: a loader private to this server. Pass a shared one
   * to reuse parsed databases across servers (tests).
   */
  loadDomainData?: (domain: AnyDomain, dataDir: string) => DomainData;
  participants: Participants;
  /** Folders of voice runs for the explorer (`--voice-runs`): each a voice run directory or a folder of them. */
  voiceRuns?: readonly string[];
  /** Runs for the explorer; without one the explorer answers 404. */
  store?: RunCatalog;
  /**
   * Where playground conversations are kept (reopenable by URL, listed in the explorer); default: the
   * run store's, else memory.
   */
  conversations?: ConversationStore;
  /** Judges NL assertions at the end of a playground conversation; without one they show as not judged. */
  judge?: Judge;
  /** Perturbations a simulated conversation may ask for; default: passk's own. */
  perturbations?: PerturbationRegistry;
  limits?: Partial<ServerLimits>;
  now?: () => Date;
  /** Folder of the built web app (`web/dist`); without one only the API is served. */
  webRoot?: string;
  /** Values that must never leave the server (API keys): removed from every answer. */
  secrets?: readonly string[];
  /** Take the client address from `X-Forwarded-For` (only behind a proxy you trust). */
  trustProxy?: boolean;
  /** How playground conversations on τ²'s domains run (default: passk's protocol). */
  protocol?: ConversationProtocol;
  /** `--tool-spec`: what the models are told about tools (over the protocol's texts). */
  toolOverrides?: ToolOverrides;
  /**
   * Host names the server answers for (besides localhost, 127.0.0.1 and ::1): its `--host` and a
   * deployment's names (`--allowed-host`). Any other Host header is refused, so a DNS-rebinding page
   * cannot reach the API.
   */
  allowedHosts?: readonly string[];
  /** Server-side log (errors with stacks); default: nowhere. */
  log?: (line: string) => void;
  newId?: () => string;
  /** Traces each playground conversation (`passk serve --otel`: `Tracing.conversation`). */
  traceConversation?: (about: ConversationAbout) => ConversationTrace;
  /**
   * The keyless playground: scripted:gold conversations replayed at a person's pace, the customer
   * opening as a customer, and `/api/info` saying what this is (`passk serve` with no model).
   */
  scriptedReplay?: ScriptedReplay;
  /** The agent gym over HTTP (`passk serve --gym`): sessions mounted at `/api/gym`; absent, no gym. */
  gym?: GymSessions;
}

/** A host name as compared: lower case, IPv6 without brackets. */
function hostKey(host: string): string {
  return host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
}

/**
 * The web app's server: the playground (conversations streamed over SSE), the explorer (runs from
 * the store) and the built front end, as one Hono app.
 *
 * @example
 * const app = createServer({ domains: builtinDomains, dataDir, participants, store });
 * serve({ fetch: app.fetch, port: 8787 });
 */
export function createServer(deps: ServerDeps) {
  const limits: ServerLimits = { ...DEFAULT_LIMITS, ...deps.limits };
  const secrets = deps.secrets ?? [];
  const redact = (text: string) => redactSecrets(text, secrets);
  const log = deps.log ?? (() => {});
  const services = createApiServices(deps, limits);

  const app = new Hono();
  // API answers (JSON; never event streams) go compressed to clients that accept it.
  app.use("/api/*", compress());

  // Only the names this server serves: a page whose name was rebound to this address is refused. An
  // address given as an IP literal is no rebinding (that needs a name), so addresses are answered.
  const hosts = new Set(["localhost", ...(deps.allowedHosts ?? [])].map(hostKey));
  app.use("*", async (c, next) => {
    const host = hostKey(new URL(c.req.url).hostname);
    if (!hosts.has(host) && isIP(host) === 0) {
      return c.json(
        {
          code: "host_not_allowed",
          message: `this server answers for ${[...hosts].join(", ")}, not "${host}"; start it with --allowed-host ${host} if that name is yours`,
        },
        421,
      );
    }
    await next();
  });
  // State-changing requests only from this server's own pages (or from tools that send no Origin).
  app.use("/api/*", async (c, next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const origin = c.req.header("Origin");
      const site = c.req.header("Sec-Fetch-Site");
      const sameOrigin =
        origin === undefined || origin === "null"
          ? site === undefined || site === "same-origin" || site === "none"
          : URL.canParse(origin) && new URL(origin).host === new URL(c.req.url).host;
      if (!sameOrigin) {
        return c.json(
          {
            code: "cross_origin_refused",
            message: `a ${c.req.method} from another origin (${origin ?? site}) is refused: use the web app served here`,
          },
          403,
        );
      }
    }
    await next();
  });

  app.onError((error, c) => {
    if (PasskError.isInstance(error)) {
      const retryAfter = (error as Partial<RetryAfter>).retryAfterSeconds;
      if (typeof retryAfter === "number") c.header("Retry-After", String(retryAfter));
      const runId = (error as { runId?: unknown }).runId;
      return c.json(
        {
          code: error.code,
          message: redact(error.message),
          ...(typeof runId === "string" && error.code === "duplicate_import" ? { runId } : {}),
        },
        httpStatusOf(error) as 400,
      );
    }
    if (error instanceof HTTPException) {
      return c.json({ code: "invalid_request", message: redact(error.message) }, error.status);
    }
    log(
      `internal error on ${c.req.method} ${c.req.path}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    // The machine's failures (a full disk, a damaged store) get their sentence — without server paths.
    const known = systemFailure(error, { withPaths: false });
    if (known !== undefined) return c.json({ code: "system_failure", message: known }, 503);
    return c.json({ code: "internal_error", message: "Internal server error" }, 500);
  });

  // Nothing a provider or a participant said may carry a key to the browser.
  if (secrets.length > 0) {
    app.use("/api/*", async (c, next) => {
      await next();
      if (!c.res.headers.get("Content-Type")?.includes("application/json")) return;
      const text = await c.res.text();
      c.res = new Response(redact(text), { status: c.res.status, headers: c.res.headers });
    });
  }
  app.use("/api/*", async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
  });

  const routes = app.route("/api", apiRoutes(services));
  if (deps.gym) app.route("/api/gym", gymRoutes(deps.gym));

  app.all("/api/*", (c) =>
    c.json({ code: "not_found", message: `no API endpoint ${c.req.method} ${c.req.path}` }, 404),
  );
  if (deps.webRoot) app.get("*", serveStatic(deps.webRoot));

  return routes;
}

/** The route types of the whole app, for a typed client in Node (`hc<AppType>`); the browser uses `ApiType`. */
export type AppType = ReturnType<typeof createServer>;
