import { loadPriceOverrides } from "../../llm/cost.js";
import type { VoiceSimulationOutcome, VoiceSimulationSpec } from "../../runner/voice-simulation.js";
import { assemblyOf, println, wholeNumber, type CliContext } from "../context.js";
import type { ModelFlags } from "../model-flags.js";
import { describeVoiceRunCost } from "../../voice/voice-cost.js";
import { describeReward } from "../print-events.js";
import { voiceSpecFlags, type VoiceRunFlags } from "./voice-run.js";

/** The flags of `passk simulate --voice`: simulate's, the voice run's, and where to keep the call. */
export type VoiceSimulateFlags = Partial<ModelFlags> &
  VoiceRunFlags & {
    domain: string;
    task: string;
    seed: string;
    data?: string;
    json?: boolean;
    saveTo?: string;
  };

/** `passk simulate --voice`'s flags as the library's voice simulation spec. */
function voiceSimulationSpec(flags: VoiceSimulateFlags): VoiceSimulationSpec {
  return {
    ...voiceSpecFlags(flags),
    domain: flags.domain,
    taskId: flags.task,
    seed: wholeNumber("--seed", flags.seed),
  };
}

/** `passk simulate --voice`: one phone call of one task, printed when it ends, graded and explained. */
export async function voiceSimulateCommand(flags: VoiceSimulateFlags, context: CliContext): Promise<number> {
  const spec = voiceSimulationSpec(flags);
  // Loaded for voice calls only: the realtime providers' SDKs cost a text run's start seconds.
  const { simulateVoice } = await import("../../runner/voice-simulation.js");
  const outcome = await simulateVoice(spec, {
    ...assemblyOf(context),
    ...(flags.prices !== undefined ? { priceOverrides: loadPriceOverrides(flags.prices) } : {}),
    onStart: ({ task, agent }) => {
      if (!flags.json)
        println(
          context,
          `── voice call · ${flags.domain} task ${task.id} · agent ${agent} · customer ${flags.userLlm} speaking with ${flags.userVoice} · ${flags.speechComplexity} · ${flags.clock} clock`,
        );
    },
  });
  if (flags.json) println(context, JSON.stringify(voiceSimulationJson(outcome), null, 2));
  else for (const line of describeVoiceCall(outcome)) println(context, line);
  if (outcome.call.systemFailure !== undefined) {
    context.stderr.write(
      `error: the call ended in an infrastructure error (${outcome.call.systemFailure}), so it is not graded as the agent's; fix the cause and run it again\n`,
    );
    return 3;
  }
  return 0;
}

function voiceSimulationJson(outcome: VoiceSimulationOutcome): Record<string, unknown> {
  return {
    ...(outcome.simulation ?? {}),
    explanation: outcome.call.explanation ?? null,
    ...(outcome.call.systemFailure !== undefined ? { system_failure: outcome.call.systemFailure } : {}),
    noise_substitutions: outcome.call.noiseSubstitutions,
    cost: outcome.cost,
    folder: outcome.folder,
  };
}

const clock = (seconds: number) => `[${seconds.toFixed(1).padStart(6)} s]`;
const clip = (text: string, max = 200) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The call as lines: who said what when and the tool calls in time order, then the grade, the metrics, the cost. */
export function describeVoiceCall(outcome: VoiceSimulationOutcome): string[] {
  const lines: Array<{ at: number; order: number; text: string }> = [];
  const view = outcome.view;
  for (const segment of view?.segments ?? []) {
    const how = segment.backchannel ? " (backchannel)" : segment.interruption ? " (over the other side)" : "";
    lines.push({
      at: segment.start,
      order: 0,
      text: `${clock(segment.start)} ${segment.side}${how}: ${segment.text || "(no words)"}`,
    });
  }
  for (const call of view?.toolCalls ?? []) {
    const answer =
      call.result === null
        ? "no answer"
        : `${call.error ? "✗" : "←"} ${clip(call.result.replace(/\s+/g, " "), 160)}${call.resultTime !== null && call.resultTime > call.time ? ` (at ${call.resultTime.toFixed(1)} s)` : ""}`;
    lines.push({
      at: call.time,
      order: 1,
      text: `${clock(call.time)} ${call.side} → ${call.name}(${clip(JSON.stringify(call.arguments), 160)}) ${answer}`,
    });
  }
  const out = lines.sort((a, b) => a.at - b.at || a.order - b.order).map((l) => l.text);
  const { call, simulation } = outcome;
  if (call.systemFailure !== undefined) return [...out, `── not graded — ${call.systemFailure}`];
  out.push(
    `── ended after ${(view?.durationSec ?? 0).toFixed(1)} s: ${call.terminationReason}`,
    ...(simulation?.reward_info ? describeReward(simulation.reward_info).split("\n") : []),
  );
  if (call.explanation) out.push(`why: ${call.explanation}`);
  const events = view?.events ?? [];
  const worth = events.filter((e) => e.error || e.warning);
  out.push(
    `interaction: ${events.length} event(s)${worth.length > 0 ? `; ${worth.map((e) => `${e.label} at ${e.time.toFixed(1)} s`).join("; ")}` : ", none amiss"}`,
  );
  if (call.noiseSubstitutions.length > 0)
    out.push(
      `noise recordings missing from the data dir were substituted (${call.noiseSubstitutions.join(", ")}): not τ-voice-comparable`,
    );
  out.push(describeVoiceRunCost(outcome.cost));
  if (outcome.folder !== null)
    out.push(
      `call written to ${outcome.folder} (passk report ${outcome.folder})${outcome.recording ? `; recording ${outcome.recording}` : ""}`,
    );
  return out;
}
