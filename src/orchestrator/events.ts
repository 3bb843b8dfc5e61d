import type { Message, ToolCall, ToolMessage } from "../core/message.js";
import type { SimulationRun } from "../core/simulation.js";
import type { DbChanges } from "../env/db-changes.js";

/**
 * What happens during a conversation, as it happens. The CLI prints these, the store records the end,
 * and the web playground streams them to the browser.
 */
export type SimulationEvent =
  | { type: "simulation-start"; simulationId: string; taskId: string; trial: number }
  | { type: "message"; message: Message }
  | { type: "tool-call-start"; call: ToolCall }
  | { type: "tool-call-end"; call: ToolCall; result: ToolMessage; latencyMs: number }
  | { type: "world-change"; side: "agent" | "user"; changes: DbChanges }
  | {
      type: "usage";
      role: "assistant" | "user";
      promptTokens: number;
      completionTokens: number;
      cost: number | null;
    }
  | { type: "simulation-end"; run: SimulationRun };
