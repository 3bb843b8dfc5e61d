import type { SequencedEvent } from "../../../../src/server/api-schemas.js";
import type { VoiceTickMessage } from "../../../../src/server/voice-call-protocol.js";

// A voice call's ticks as the text playground's world events, so the voice mode draws the agent's world
// with the text mode's own cards (`WorldCards`): each agent tool call ends with the records it names,
// and a tick whose tool calls changed the world carries that change (old → new) and the records whole.

export function worldEventsOf(ticks: readonly VoiceTickMessage[]): SequencedEvent[] {
  const events: SequencedEvent[] = [];
  for (const tick of ticks) {
    for (const call of tick.agentToolCalls)
      events.push({
        seq: events.length,
        type: "tool-call-end",
        call: { id: call.id, name: call.name, arguments: call.arguments, requestor: "assistant" },
        result: {
          id: call.id,
          role: "tool",
          content: call.result,
          requestor: "assistant",
          error: call.error,
        },
        latencyMs: 0,
        ...(call.records.length > 0 ? { records: call.records } : {}),
      });
    if (tick.worldChanges.length > 0)
      events.push({
        seq: events.length,
        type: "world-change",
        side: "agent",
        records: tick.worldChanges,
        current: tick.worldCurrent,
      });
  }
  return events;
}
