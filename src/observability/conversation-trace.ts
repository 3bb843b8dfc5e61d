import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import type { SimulationRunInput } from "../formats/tau2/results.js";
import { redactUrl } from "../llm/redact.js";
import type { SimulationEvent } from "../orchestrator/events.js";
import { simulationCost } from "../metrics/simulation-cost.js";
import { ERROR_TYPE, GEN_AI } from "./gen-ai-attributes.js";
import type { SpanText } from "./span-text.js";
import type { TraceScopes } from "./trace-scope.js";

/** Which conversation a trace is: its place in a run and who took part. */
export interface ConversationAbout {
  /** Absent outside a stored run (`passk simulate`). */
  runId?: string;
  domain: string;
  taskId: string;
  trial: number;
  seed: number;
  /** The specs (`openai:gpt-4.1`, `scripted:gold`, `a2a:URL`: its credentials are taken out). */
  agentLlm: string;
  userLlm?: string;
  protocol?: string;
}

/** One conversation's trace: fed its events, then its graded result (or the error that ended it). */
export interface ConversationTrace {
  /** Runs `work` as part of the conversation: the model calls it makes become the conversation's children. */
  run<T>(work: () => Promise<T>): Promise<T>;
  onEvent(event: SimulationEvent): void;
  /** Ends the trace with the grade; `error` when the conversation produced no result (interrupted, a harness failure). */
  end(outcome: { run: SimulationRunInput } | { error: unknown }): void;
}

/**
 * A conversation as a trace: its root span (`conversation <domain>`) holds where it belongs (run, task,
 * trial, seed, models) and, at the end, its grade (reward, termination reason, reward breakdown, checks
 * passed, tokens, cost); tool calls are `execute_tool <name>` children carrying their arguments and
 * result (cut short), the side that called them, and an error status when the tool failed.
 */
export function startConversationTrace(
  tracer: Tracer,
  scopes: TraceScopes,
  text: SpanText,
  about: ConversationAbout,
): ConversationTrace {
  const root = tracer.startSpan(
    `conversation ${about.domain}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        "passk.domain": about.domain,
        "passk.task.id": about.taskId,
        "passk.trial": about.trial,
        "passk.seed": about.seed,
        "passk.agent.llm": text(specForSpan(about.agentLlm), 512),
        ...(about.userLlm !== undefined ? { "passk.user.llm": text(specForSpan(about.userLlm), 512) } : {}),
        ...(about.protocol !== undefined ? { "passk.protocol": about.protocol } : {}),
        // Backends that group traces by session (Langfuse, Phoenix) show a run's conversations together.
        ...(about.runId !== undefined ? { "passk.run.id": about.runId, "session.id": about.runId } : {}),
      },
    },
    scopes.parentContext(),
  );
  const tools = new Map<string, Span>();
  let ended = false;

  return {
    run: (work) => scopes.run({ span: root }, work),

    onEvent(event) {
      if (event.type === "simulation-start") {
        root.setAttribute("passk.simulation.id", event.simulationId);
        root.setAttribute(GEN_AI.conversationId, event.simulationId);
      } else if (event.type === "tool-call-start") {
        const { call } = event;
        const span = tracer.startSpan(
          `execute_tool ${call.name}`,
          {
            kind: SpanKind.INTERNAL,
            attributes: {
              [GEN_AI.operationName]: "execute_tool",
              [GEN_AI.toolName]: call.name,
              [GEN_AI.toolType]: "function",
              [GEN_AI.toolCallId]: call.id,
              [GEN_AI.toolCallArguments]: text(JSON.stringify(call.arguments)),
              "passk.tool.caller": call.requestor === "user" ? "customer" : "agent",
            },
          },
          trace.setSpan(ROOT_CONTEXT, root),
        );
        tools.set(toolKey(call), span);
      } else if (event.type === "tool-call-end") {
        const span = tools.get(toolKey(event.call));
        if (!span) return;
        tools.delete(toolKey(event.call));
        span.setAttribute(GEN_AI.toolCallResult, text(event.result.content ?? ""));
        if (event.result.error) {
          span.setAttribute(ERROR_TYPE, "tool_error");
          span.setStatus({ code: SpanStatusCode.ERROR, message: text(event.result.content ?? "", 256) });
        }
        span.end();
      }
    },

    end(outcome) {
      if (ended) return;
      ended = true;
      for (const span of tools.values()) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: "the conversation ended during the call" });
        span.end();
      }
      tools.clear();
      if ("error" in outcome) {
        const error = outcome.error;
        root.setAttribute(ERROR_TYPE, error instanceof Error ? error.name : "Error");
        root.setStatus({
          code: SpanStatusCode.ERROR,
          message: text(error instanceof Error ? error.message : String(error), 512),
        });
      } else {
        root.setAttributes(gradeAttributes(outcome.run, text));
        const reason = outcome.run.termination_reason;
        if (reason === "infrastructure_error" || reason === "agent_error" || reason === "user_error") {
          root.setAttribute(ERROR_TYPE, reason);
          const info: unknown = outcome.run.info;
          const detail =
            info !== null && typeof info === "object" && "error" in info ? info.error : undefined;
          root.setStatus({
            code: SpanStatusCode.ERROR,
            message: text(typeof detail === "string" ? detail : reason, 512),
          });
        }
      }
      root.end();
    },
  };
}

/** A spec as a span may hold it: a remote agent's URL (`a2a:https://user:pass@…`) without its credentials. */
function specForSpan(spec: string): string {
  const remote = /^([a-z][\w-]*:)(https?:\/\/.*)$/i.exec(spec);
  return remote ? `${remote[1]}${redactUrl(remote[2]!)}` : spec;
}

function toolKey(call: { id: string; name: string; requestor: string }): string {
  return `${call.requestor}\u0000${call.id}\u0000${call.name}`;
}

/** The grade as attributes: reward, why it ended, the breakdown and how many checks passed, tokens, cost. */
function gradeAttributes(run: SimulationRunInput, text: SpanText): Attributes {
  const attributes: Attributes = {
    "passk.termination_reason": run.termination_reason,
    "passk.messages": run.messages?.length ?? 0,
  };
  if (run.duration !== null && run.duration !== undefined) attributes["passk.duration_s"] = run.duration;
  const reward = run.reward_info;
  if (reward) {
    attributes["passk.reward"] = reward.reward;
    attributes["passk.success"] = Math.abs(reward.reward - 1) < 1e-6;
    const breakdown = reward.reward_breakdown ?? {};
    attributes["passk.reward_breakdown"] = text(JSON.stringify(breakdown), 512);
    for (const [component, value] of Object.entries(breakdown))
      if (typeof value === "number") attributes[`passk.reward_breakdown.${component}`] = value;
    if (reward.db_check) attributes["passk.checks.db_match"] = reward.db_check.db_match;
    const counts: Array<[string, ReadonlyArray<boolean> | undefined]> = [
      ["actions", reward.action_checks?.map((check) => check.action_match)],
      ["communicate", reward.communicate_checks?.map((check) => check.met)],
      ["nl_assertions", reward.nl_assertions?.map((check) => check.met)],
      ["env_assertions", reward.env_assertions?.map((check) => check.met)],
    ];
    for (const [name, results] of counts) {
      if (!results || results.length === 0) continue;
      attributes[`passk.checks.${name}.passed`] = results.filter(Boolean).length;
      attributes[`passk.checks.${name}.total`] = results.length;
    }
  }
  let input = 0;
  let output = 0;
  let cacheRead = 0;
  for (const message of run.messages ?? []) {
    if (message.role !== "assistant" && message.role !== "user") continue;
    input += message.usage?.prompt_tokens ?? 0;
    output += message.usage?.completion_tokens ?? 0;
    cacheRead += message.usage?.cache_read_tokens ?? 0;
  }
  attributes["passk.usage.input_tokens"] = input;
  attributes["passk.usage.output_tokens"] = output;
  attributes["passk.usage.cache_read_tokens"] = cacheRead;
  if (typeof run.agent_cost === "number") attributes["passk.agent_cost_usd"] = run.agent_cost;
  if (typeof run.user_cost === "number") attributes["passk.user_cost_usd"] = run.user_cost;
  const cost = simulationCost(run);
  if (cost !== null) attributes["passk.cost_usd"] = cost;
  return attributes;
}
