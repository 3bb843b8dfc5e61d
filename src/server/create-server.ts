import { isIP } from "node:net";
import { getConnInfo } from "@hono/node-server/conninfo";
import { zValidator } from "@hono/zod-validator";
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { streamSSE } from "hono/streaming";
import type { z } from "zod";
import type { Agent, UserSimulator } from "../core/agent.js";
import { ConfigError, PasskError, UnknownNameError } from "../core/errors.js";
import { systemFailure } from "../core/system-failure.js";
import type { ConversationProtocol } from "../runner/simulation-setup.js";
import type { Judge } from "../core/judge.js";
import type { AnyDomain } from "../env/domain.js";
import { DomainData } from "../formats/tau2/domain-data.js";
import { parseResults } from "../formats/tau2/results.js";
import { redactSecrets } from "../llm/redact.js";
import {
  CompareQuerySchema,
  ConversationParamSchema,
  CustomerMessageRequestSchema,
  DomainParamSchema,
  EventsQuerySchema,
  RunIdParamSchema,
  SimulationParamSchema,
  StartConversationRequestSchema,
  TaskParamSchema,
  type CompareResponse,
  type DomainDetail,
  type RunDetail,
  type RunList,
  type ServerInfo,
  type SimulationDetail,
  type StartConversationResponse,
  type TaskDetail,
} from "./api-schemas.js";
import { ConversationHub, type ConversationLimits } from "./conversations.js";
import { scenarioChips, taskSummary, toolSummaries } from "./domain-views.js";
import { rateLimit } from "./rate-limit.js";
import { resultsDomainName, type RunStore } from "./run-store.js";
import { RunViews } from "./run-views.js";
import {
  FeatureDisabledError,
  ParticipantNotOfferedError,
  SpendCapReachedError,
  httpStatusOf,
  type RetryAfter,
} from "./server-errors.js";
import { SpendTracker } from "./spend-tracker.js";
import { serveStatic } from "./static-files.js";

/** How the server makes agents and simulated customers from the specs it offers. */
export interface Participants {
  /** Agent specs the browser may pick; the first is the default. */
  agents: readonly string[];
  /** User-simulator specs the browser may pick; the first is the default. */
  users: readonly string[];
  createAgent(spec: string): Agent;
  createUserSimulator(spec: string): UserSimulator;
}

export interface ServerLimits extends ConversationLimits {
  /** Requests per client address per window on the endpoints that start or drive work. */
  rateLimitMax: number;
  rateLimitWindowMs: number;
  /** Daily model spend cap in USD (UTC days); null for none. */
  dailySpendCapUsd: number | null;
  /** Largest results file accepted for import. */
  maxUploadBytes: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  rateLimitMax: 60,
  rateLimitWindowMs: 60_000,
  dailySpendCapUsd: null,
  maxUploadBytes: 64 * 1024 * 1024,
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
  /** Runs for the explorer; without one the explorer answers 404. */
  store?: RunStore;
  /** Judges NL assertions at the end of a playground conversation; without one they show as not judged. */
  judge?: Judge;
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
  /**
   * Host names the server answers for (besides localhost, 127.0.0.1 and ::1): its `--host` and a
   * deployment's names (`--allowed-host`). Any other Host header is refused, so a DNS-rebinding page
   * cannot reach the API.
   */
  allowedHosts?: readonly string[];
  /** Server-side log (errors with stacks); default: nowhere. */
  log?: (line: string) => void;
  newId?: () => string;
}

/** A zod validator whose failures answer 400 `{code: "invalid_request", message}` naming each problem. */
function validate<T extends z.ZodType, Target extends "json" | "query" | "param">(target: Target, schema: T) {
  return zValidator(target, schema, (result, c) => {
    if (!result.success) {
      const where = target === "json" ? "body" : target;
      const message = result.error.issues
        .map(
          (issue) => `${where}${issue.path.length > 0 ? `.${issue.path.join(".")}` : ""}: ${issue.message}`,
        )
        .join("; ");
      return c.json({ code: "invalid_request", message }, 400);
    }
    return undefined;
  });
}

/** Largest JSON body the playground endpoints read: a message is at most 4,000 characters. */
export const MAX_JSON_BODY_BYTES = 64 * 1024;

/** A larger body is refused with 413 before it is read in full, so no client can fill the memory. */
const limitJsonBody = bodyLimit({
  maxSize: MAX_JSON_BODY_BYTES,
  onError: (c) =>
    c.json(
      {
        code: "request_too_large",
        message: `the request body is larger than ${MAX_JSON_BODY_BYTES} bytes`,
      },
      413,
    ),
});

/** A host name as compared: lower case, IPv6 without brackets. */
function hostKey(host: string): string {
  return host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
}

/** JSON endpoints say so when the body is not JSON (instead of validating an empty object). */
const requireJson: MiddlewareHandler = async (c, next) => {
  const type = c.req.header("Content-Type") ?? "";
  if (!/^application\/([\w.-]+\+)?json\b/i.test(type.trim())) {
    return c.json(
      {
        code: "invalid_request",
        message: `send a JSON body with Content-Type: application/json (got "${type || "none"}")`,
      },
      400,
    );
  }
  await next();
};

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
  const now = deps.now ?? (() => new Date());
  const secrets = deps.secrets ?? [];
  const redact = (text: string) => redactSecrets(text, secrets);
  const log = deps.log ?? (() => {});
  const spend = new SpendTracker({ capUsd: limits.dailySpendCapUsd, now });
  const hub = new ConversationHub({
    limits,
    spend,
    now,
    log,
    ...(deps.judge ? { judge: deps.judge } : {}),
    ...(deps.protocol ? { protocol: deps.protocol } : {}),
    ...(deps.newId ? { newId: deps.newId } : {}),
  });

  const loaded = new Map<string, DomainData>();
  const domainData = (name: string): DomainData => {
    let data = loaded.get(name);
    if (!data) {
      const domain = deps.domains.get(name);
      if (!domain) throw new UnknownNameError("domain", name, [...deps.domains.keys()]);
      data = deps.loadDomainData
        ? deps.loadDomainData(domain, deps.dataDir)
        : new DomainData(domain, deps.dataDir);
      loaded.set(name, data);
    }
    return data;
  };
  const domainDataIfAny = (name: string): DomainData | undefined => {
    try {
      return domainData(name);
    } catch {
      return undefined;
    }
  };
  // A domain's detail depends only on its data, which never changes: built once (telecom's thousands
  // of task summaries and scenario chips would otherwise be recomputed on every page load).
  const details = new Map<string, DomainDetail>();
  const domainDetail = (name: string): DomainDetail => {
    let detail = details.get(name);
    if (!detail) {
      const data = domainData(name);
      const domain = data.domain;
      detail = {
        name: domain.name,
        description: domain.description,
        policy: data.policy,
        tools: toolSummaries(domain),
        tasks: data.tasks.map((task) => taskSummary(domain, task)),
        scenarios: scenarioChips(domain, data.tasks),
        hasUserTools: (domain.user?.tools.length ?? 0) > 0,
      };
      details.set(name, detail);
    }
    return detail;
  };
  const views = deps.store ? new RunViews(deps.store, domainDataIfAny) : undefined;
  const explorer = (): RunViews => {
    if (!views)
      throw new FeatureDisabledError("this server has no run store: start it with --store to browse runs");
    return views;
  };

  const clientKey = (_request: Request, c: Context): string => {
    if (deps.trustProxy) {
      const forwarded = c.req.header("X-Forwarded-For")?.split(",")[0]?.trim();
      if (forwarded) return forwarded;
    }
    try {
      return getConnInfo(c).remote.address ?? "unknown";
    } catch {
      return "unknown"; // in-process requests (tests) have no socket
    }
  };
  const limited = rateLimit({ max: limits.rateLimitMax, windowMs: limits.rateLimitWindowMs, clientKey, now });
  const pick = (role: "agent" | "user", offered: readonly string[], spec: string | undefined): string => {
    const chosen = spec ?? offered[0];
    if (chosen === undefined || !offered.includes(chosen))
      throw new ParticipantNotOfferedError(role, spec ?? "(default)", offered);
    return chosen;
  };

  const app = new Hono();

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
      return c.json({ code: error.code, message: redact(error.message) }, httpStatusOf(error) as 400);
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

  const routes = app
    .get("/api/info", (c) => {
      const domains = [...deps.domains.values()].flatMap((domain) => {
        const data = domainDataIfAny(domain.name);
        if (!data) return [];
        return [
          {
            name: domain.name,
            description: domain.description,
            taskCount: data.tasks.length,
            hasUserTools: (domain.user?.tools.length ?? 0) > 0,
          },
        ];
      });
      const info: ServerInfo = {
        domains,
        agents: [...deps.participants.agents],
        users: [...deps.participants.users],
        budget: spend.budget(),
        explorer: views !== undefined,
      };
      return c.json(info);
    })
    .get("/api/budget", (c) => c.json(spend.budget()))
    .get("/api/domains/:domain", validate("param", DomainParamSchema), (c) =>
      c.json(domainDetail(c.req.valid("param").domain)),
    )
    .get("/api/domains/:domain/tasks/:taskId", validate("param", TaskParamSchema), (c) => {
      const { domain, taskId } = c.req.valid("param");
      const detail: TaskDetail = { domain, task: domainData(domain).task(taskId) };
      return c.json(detail);
    })
    .post(
      "/api/conversations",
      limited,
      limitJsonBody,
      requireJson,
      validate("json", StartConversationRequestSchema),
      (c) => {
        const request = c.req.valid("json");
        const budget = spend.budget();
        if (budget.exhausted && budget.capUsd !== null)
          throw new SpendCapReachedError(budget.capUsd, budget.resetsAt, now());
        const data = domainData(request.domain);
        const task = request.taskId !== undefined ? data.task(request.taskId) : undefined;
        const agentSpec = pick("agent", deps.participants.agents, request.agent);
        const userSpec =
          request.mode === "simulate" ? pick("user", deps.participants.users, request.user) : undefined;
        const conversation = hub.start({
          mode: request.mode,
          data,
          ...(task ? { task } : {}),
          agent: deps.participants.createAgent(agentSpec),
          agentSpec,
          ...(userSpec !== undefined
            ? { user: deps.participants.createUserSimulator(userSpec), userSpec }
            : {}),
        });
        const response: StartConversationResponse = {
          conversationId: conversation.id,
          eventsUrl: `/api/conversations/${conversation.id}/events`,
        };
        return c.json(response, 201);
      },
    )
    .get(
      "/api/conversations/:conversationId/events",
      validate("param", ConversationParamSchema),
      validate("query", EventsQuerySchema),
      (c) => {
        const conversation = hub.get(c.req.valid("param").conversationId);
        const lastEventId = Number(c.req.header("Last-Event-ID"));
        const after = Number.isInteger(lastEventId) ? lastEventId : (c.req.valid("query").after ?? -1);
        return streamSSE(c, async (stream) => {
          const closed = new AbortController();
          stream.onAbort(() => closed.abort());
          let next = after + 1;
          while (!closed.signal.aborted) {
            while (next < conversation.events.length) {
              const event = conversation.events[next++]!;
              await stream.writeSSE({ id: String(event.seq), data: redact(JSON.stringify(event)) });
            }
            if (conversation.ended) break;
            const heartbeat = new AbortController();
            const timer = setTimeout(() => heartbeat.abort(), 15_000);
            await conversation.waitForEvents(next, AbortSignal.any([closed.signal, heartbeat.signal]));
            clearTimeout(timer);
            if (heartbeat.signal.aborted && !closed.signal.aborted) await stream.write(": keep-alive\n\n");
          }
        });
      },
    )
    .post(
      "/api/conversations/:conversationId/messages",
      limited,
      validate("param", ConversationParamSchema),
      limitJsonBody,
      requireJson,
      validate("json", CustomerMessageRequestSchema),
      (c) => {
        const turn = c.req.valid("json");
        hub.say(c.req.valid("param").conversationId, turn.content ?? turn.toolCall!);
        return c.json({ ok: true as const });
      },
    )
    .post("/api/conversations/:conversationId/end", validate("param", ConversationParamSchema), (c) => {
      hub.end(c.req.valid("param").conversationId);
      return c.json({ ok: true as const });
    })
    .get("/api/runs", (c) => {
      const list: RunList = { runs: explorer().list() };
      return c.json(list);
    })
    .post(
      "/api/runs/import",
      limited,
      requireJson,
      bodyLimit({
        maxSize: limits.maxUploadBytes,
        onError: (c) =>
          c.json(
            {
              code: "upload_too_large",
              message: `the results file is larger than ${limits.maxUploadBytes} bytes`,
            },
            413,
          ),
      }),
      async (c) => {
        const views = explorer();
        const store = deps.store!;
        const name = c.req.query("name")?.slice(0, 200) || "uploaded results";
        const text = await c.req.text();
        if (text.trim() === "") {
          return c.json(
            {
              code: "invalid_request",
              message: "the body is empty: send the results file's JSON as the body",
            },
            400,
          );
        }
        const file = parseResults(text, name);
        const domain = resultsDomainName(file);
        if (!domain)
          throw new ConfigError(
            `${name} does not name its domain (info.environment_info.domain_name is missing)`,
          );
        const runId = store.importResults(file, { label: name, domain });
        return c.json({ run: views.summaryOf(runId) }, 201);
      },
    )
    .get("/api/runs/:runId", validate("param", RunIdParamSchema), (c) => {
      const detail: RunDetail = explorer().detail(c.req.valid("param").runId);
      return c.json(detail);
    })
    .get(
      "/api/runs/:runId/simulations/:domain/:taskId/:trial",
      validate("param", SimulationParamSchema),
      (c) => {
        const { runId, ...key } = c.req.valid("param");
        const detail: SimulationDetail = explorer().simulation(runId, key);
        return c.json(detail);
      },
    )
    .get("/api/compare", validate("query", CompareQuerySchema), (c) => {
      const { a, b } = c.req.valid("query");
      const comparison: CompareResponse = explorer().compare(a, b);
      return c.json(comparison);
    });

  app.all("/api/*", (c) =>
    c.json({ code: "not_found", message: `no API endpoint ${c.req.method} ${c.req.path}` }, 404),
  );
  if (deps.webRoot) app.get("*", serveStatic(deps.webRoot));

  return routes;
}

/** The route types, for a typed client (`hc<AppType>` from `hono/client`). */
export type AppType = ReturnType<typeof createServer>;
