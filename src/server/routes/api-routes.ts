import { Hono } from "hono";
import type { ApiServices } from "../api-services.js";
import { conversationRoutes } from "./conversation-routes.js";
import { domainRoutes } from "./domain-routes.js";
import { runRoutes } from "./run-routes.js";
import { voiceRunRoutes } from "./voice-run-routes.js";

/**
 * Every route of the web API (mounted at `/api`), one module per area. The web client is typed with
 * {@link ApiType} (`hc<ApiType>` from `hono/client`): these modules import only hono, zod and the
 * API's schemas and service interface, so the browser's type check does not reach Node code.
 */
export function apiRoutes(services: ApiServices) {
  return new Hono()
    .route("/", domainRoutes(services))
    .route("/conversations", conversationRoutes(services))
    .route("/", runRoutes(services))
    .route("/voice-runs", voiceRunRoutes(services));
}

/** The API's route types, for a typed client: `hc<ApiType>(origin + "/api")`. */
export type ApiType = ReturnType<typeof apiRoutes>;
