import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import {
  AddNoteRequestSchema,
  CompareQuerySchema,
  NoteParamSchema,
  ImportQuerySchema,
  RenameRunRequestSchema,
  RunIdParamSchema,
  RunSearchQuerySchema,
  SimulationParamSchema,
} from "../api-schemas.js";
import type { ApiServices } from "../api-services.js";
import { limitJsonBody, requireJson, validate } from "./request-checks.js";

/** The explorer: runs from the store (list, import, rename, delete), their simulations, comparisons. */
export function runRoutes(services: ApiServices) {
  const runs = services.runs;
  const limitUpload = bodyLimit({
    maxSize: services.maxUploadBytes,
    onError: (c) =>
      c.json(
        {
          code: "upload_too_large",
          message: `the results file is larger than ${services.maxUploadBytes} bytes`,
        },
        413,
      ),
  });
  return new Hono()
    .get("/runs", (c) => c.json(runs.list()))
    .post(
      "/runs/import",
      services.rateLimited,
      services.importLimited,
      requireJson,
      limitUpload,
      validate("query", ImportQuerySchema),
      async (c) => {
        const query = c.req.valid("query");
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
        const run = runs.importResults(text, {
          name: query.name?.slice(0, 200) || "uploaded results",
          again: query.again === "true",
        });
        return c.json({ run }, 201);
      },
    )
    .get("/runs/:runId", validate("param", RunIdParamSchema), (c) =>
      c.json(runs.detail(c.req.valid("param").runId)),
    )
    .patch(
      "/runs/:runId",
      services.rateLimited,
      validate("param", RunIdParamSchema),
      limitJsonBody,
      requireJson,
      validate("json", RenameRunRequestSchema),
      (c) => c.json({ run: runs.rename(c.req.valid("param").runId, c.req.valid("json").label) }),
    )
    .delete("/runs/:runId", services.rateLimited, validate("param", RunIdParamSchema), (c) =>
      c.json(runs.remove(c.req.valid("param").runId)),
    )
    .get(
      "/runs/:runId/search",
      validate("param", RunIdParamSchema),
      validate("query", RunSearchQuerySchema),
      (c) => c.json(runs.search(c.req.valid("param").runId, c.req.valid("query").q)),
    )
    .get("/runs/:runId/simulations/:domain/:taskId/:trial", validate("param", SimulationParamSchema), (c) => {
      const { runId, ...key } = c.req.valid("param");
      return c.json(runs.simulation(runId, key));
    })
    .get(
      "/runs/:runId/simulations/:domain/:taskId/:trial/notes",
      validate("param", SimulationParamSchema),
      (c) => {
        const { runId, ...key } = c.req.valid("param");
        return c.json(runs.notes(runId, key));
      },
    )
    .post(
      "/runs/:runId/simulations/:domain/:taskId/:trial/notes",
      services.rateLimited,
      validate("param", SimulationParamSchema),
      limitJsonBody,
      requireJson,
      validate("json", AddNoteRequestSchema),
      (c) => {
        const { runId, ...key } = c.req.valid("param");
        return c.json({ note: runs.addNote(runId, key, c.req.valid("json")) }, 201);
      },
    )
    .delete("/runs/:runId/notes/:noteId", services.rateLimited, validate("param", NoteParamSchema), (c) => {
      const { runId, noteId } = c.req.valid("param");
      return c.json(runs.removeNote(runId, noteId));
    })
    .get(
      "/runs/:runId/simulations/:domain/:taskId/:trial/model-calls",
      validate("param", SimulationParamSchema),
      (c) => {
        const { runId, ...key } = c.req.valid("param");
        return c.json(runs.modelCalls(runId, key));
      },
    )
    .get("/compare", validate("query", CompareQuerySchema), (c) => {
      const { a, b } = c.req.valid("query");
      return c.json(runs.compare(a, b));
    });
}
