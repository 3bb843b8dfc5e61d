import { Hono } from "hono";
import {
  AgentScoreQuerySchema,
  DocumentQuerySchema,
  DomainParamSchema,
  TaskPageQuerySchema,
  TaskParamSchema,
} from "../api-schemas.js";
import type { ApiServices } from "../api-services.js";
import { validate } from "./request-checks.js";

/** The server, its domains and their tasks: what the playground offers. */
export function domainRoutes(services: ApiServices) {
  return new Hono()
    .get("/info", (c) => c.json(services.info()))
    .get("/budget", (c) => c.json(services.budget()))
    .get("/domains/:domain", validate("param", DomainParamSchema), (c) =>
      c.json(services.domain(c.req.valid("param").domain)),
    )
    .get(
      "/domains/:domain/tasks",
      validate("param", DomainParamSchema),
      validate("query", TaskPageQuerySchema),
      (c) => {
        const { offset, limit } = c.req.valid("query");
        return c.json(services.taskPage(c.req.valid("param").domain, offset, limit));
      },
    )
    .get("/domains/:domain/tasks/:taskId", validate("param", TaskParamSchema), (c) => {
      const { domain, taskId } = c.req.valid("param");
      return c.json(services.task(domain, taskId));
    })
    .get(
      "/domains/:domain/documents",
      validate("param", DomainParamSchema),
      validate("query", DocumentQuerySchema),
      (c) => c.json(services.documents(c.req.valid("param").domain, c.req.valid("query").q)),
    )
    .get(
      "/domains/:domain/agent-score",
      validate("param", DomainParamSchema),
      validate("query", AgentScoreQuerySchema),
      (c) => {
        const { agent, user } = c.req.valid("query");
        return c.json(services.agentScore(c.req.valid("param").domain, agent, user));
      },
    );
}
