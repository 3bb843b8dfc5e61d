import { isIP } from "node:net";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { PasskError } from "../core/errors.js";
import { systemFailure } from "../core/system-failure.js";
import { redactSecrets } from "../llm/redact.js";
import { createApiServices } from "./create-api-services.js";
import { apiRoutes } from "./routes/api-routes.js";
import { gymRoutes } from "./routes/gym-routes.js";
import { MAX_JSON_BODY_BYTES } from "./routes/request-checks.js";
import { httpStatusOf, type RetryAfter } from "./server-errors.js";
import { serveStatic } from "./static-files.js";
import type { ServerDeps, ServerLimits } from "./server-deps.js";
import { compress } from "hono/compress";

export { MAX_JSON_BODY_BYTES };

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
