import { Hono } from "hono";
import type { ApiServices } from "../api-services.js";
import { VoiceRunParamSchema, VoiceSimulationParamSchema } from "../voice-api-schemas.js";
import { validate } from "./request-checks.js";

/** The explorer's voice runs (`passk serve --voice-runs`): list, one run, one call, its recording. */
export function voiceRunRoutes(services: ApiServices) {
  const voice = services.voiceRuns;
  return new Hono()
    .get("/", (c) => c.json(voice.list()))
    .get("/:runId", validate("param", VoiceRunParamSchema), (c) =>
      c.json(voice.detail(c.req.valid("param").runId)),
    )
    .get("/:runId/calls/:simulationId", validate("param", VoiceSimulationParamSchema), (c) => {
      const { runId, simulationId } = c.req.valid("param");
      return c.json(voice.call(runId, simulationId));
    })
    .get("/:runId/calls/:simulationId/audio", validate("param", VoiceSimulationParamSchema), (c) => {
      const { runId, simulationId } = c.req.valid("param");
      return voice.audio(runId, simulationId, c.req.header("Range"));
    });
}
