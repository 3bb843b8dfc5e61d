import { Hono } from "hono";
import { z } from "zod";
import { GymActionSchema } from "../../gym/agent-gym.js";
import { GymSessionRequestSchema, type GymSessions } from "../../gym/gym-sessions.js";
import { limitJsonBody, requireJson, validate } from "./request-checks.js";

const SessionParamSchema = z.strictObject({
  session: z.uuid("a session id is a UUID, as create answered it"),
});

/**
 * The agent gym over HTTP (`passk serve --gym`), mounted at `/api/gym`: create a session (its first
 * episode starts), step it, reset it for another episode, close it. The session id, answered once to
 * its creator, is what lets a client drive it.
 */
export function gymRoutes(sessions: GymSessions) {
  return new Hono()
    .post("/sessions", limitJsonBody, requireJson, validate("json", GymSessionRequestSchema), async (c) =>
      c.json(await sessions.create(c.req.valid("json")), 201),
    )
    .post(
      "/sessions/:session/reset",
      validate("param", SessionParamSchema),
      limitJsonBody,
      requireJson,
      validate("json", GymSessionRequestSchema),
      async (c) =>
        c.json({ observation: await sessions.reset(c.req.valid("param").session, c.req.valid("json")) }),
    )
    .post(
      "/sessions/:session/step",
      validate("param", SessionParamSchema),
      limitJsonBody,
      requireJson,
      validate("json", GymActionSchema),
      async (c) =>
        c.json({ observation: await sessions.step(c.req.valid("param").session, c.req.valid("json")) }),
    )
    .delete("/sessions/:session", validate("param", SessionParamSchema), (c) =>
      sessions.close(c.req.valid("param").session)
        ? c.body(null, 204)
        : c.json({ code: "gym_session_not_found", message: "no such gym session" }, 404),
    );
}
