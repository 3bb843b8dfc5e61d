import type { Message } from "../core/message.js";
import type { RewardInfo } from "../core/simulation.js";
import type { RecordDiff } from "../env/db-diff.js";
import type { SimulationEvent } from "../orchestrator/events.js";

const truncate = (text: string, max = 400) =>
  text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;

/** Human-readable lines for a conversation as it happens. */
export function describeEvent(event: SimulationEvent): string | undefined {
  switch (event.type) {
    case "simulation-start":
      return `── task ${event.taskId} · trial ${event.trial} · ${event.simulationId}`;
    case "message":
      return describeMessage(event.message);
    case "tool-call-end":
      return `   ${event.result.error ? "✗" : "←"} ${truncate(event.result.content ?? "")}  (${event.latencyMs.toFixed(1)} ms)`;
    case "world-change": {
      const parts = Object.entries(event.changes).map(([collection, change]) => {
        if ("changed" in change) {
          const ids = [
            ...Object.keys(change.changed),
            ...Object.keys(change.added).map((id) => `+${id}`),
            ...change.removed.map((id) => `-${id}`),
          ];
          return `${collection}: ${ids.join(", ")}`;
        }
        if ("changed_keys" in change) return `${collection}: ${Object.keys(change.changed_keys).join(", ")}`;
        return collection;
      });
      return parts.length > 0 ? `   ⟳ ${event.side} world changed — ${parts.join("; ")}` : undefined;
    }
    case "simulation-end":
      return `── ended: ${event.run.termination_reason}${event.run.info && typeof event.run.info === "object" && "error" in event.run.info ? ` (${String(event.run.info.error)})` : ""}`;
    default:
      return undefined;
  }
}

function describeMessage(message: Message): string | undefined {
  if (message.role === "tool") return undefined; // shown by tool-call-end
  const who = message.role === "assistant" ? "agent" : message.role;
  const lines: string[] = [];
  if (message.content) lines.push(`${who}: ${message.content}`);
  if ((message.role === "assistant" || message.role === "user") && message.tool_calls) {
    for (const call of message.tool_calls)
      lines.push(`   → ${who} calls ${call.name}(${truncate(JSON.stringify(call.arguments), 300)})`);
  }
  return lines.join("\n") || undefined;
}

/** The reward breakdown of a graded conversation, check by check. */
export function describeReward(reward: RewardInfo): string {
  const lines = [`reward: ${reward.reward.toFixed(2)}`];
  for (const [component, value] of Object.entries(reward.reward_breakdown ?? {})) {
    lines.push(
      `  ${component.padEnd(14)} ${value === null ? "needs an LLM judge (--judge-llm)" : value.toFixed(2)}`,
    );
  }
  if (reward.db_check && !reward.db_check.db_match)
    lines.push("  ✗ final database differs from the gold one");
  // What evaluateSimulation records beside the reward: the records the agent's world got wrong.
  const diff = (reward.info as { db_diff?: { agent: RecordDiff[] } } | null | undefined)?.db_diff;
  for (const record of diff?.agent ?? []) {
    lines.push(
      `    ${record.collection} ${record.id}: ${record.kind}${record.fields.map((f) => `\n      ${f.path}: got ${JSON.stringify(f.predicted)}, expected ${JSON.stringify(f.gold)}`).join("")}`,
    );
  }
  for (const check of reward.action_checks ?? []) {
    if (!check.action_match)
      lines.push(`  ✗ missed action ${check.action.name}(${JSON.stringify(check.action.arguments)})`);
  }
  for (const check of reward.communicate_checks ?? [])
    if (!check.met) lines.push(`  ✗ not communicated: "${check.info}"`);
  for (const check of reward.env_assertions ?? [])
    if (!check.met)
      lines.push(
        `  ✗ env assertion failed: ${check.env_assertion.func_name}(${JSON.stringify(check.env_assertion.arguments)})`,
      );
  for (const check of reward.nl_assertions ?? [])
    if (!check.met)
      lines.push(`  ✗ NL assertion not met: ${check.nl_assertion} — ${check.justification ?? ""}`);
  const note = (reward.info as { note?: string } | null | undefined)?.note;
  if (note) lines.push(`  note: ${note}`);
  return lines.join("\n");
}
