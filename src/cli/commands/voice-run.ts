import { Option, type Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import { loadPriceOverrides } from "../../llm/cost.js";
import type { VoiceRunStartSpec } from "../../runner/start-voice-run.js";
import type { VoiceCallOutcome } from "../../runner/voice-run.js";
import { describeVoiceRunCost } from "../../voice/voice-cost.js";
import { DEFAULT_TICK_SECONDS } from "../../voice/call.js";
import { SPEECH_COMPLEXITIES } from "../../voice/voice-settings.js";
import { println, runOptionsOf, type CliContext } from "../context.js";
import { modelSpecOfFlags, type ModelFlags } from "../model-flags.js";
import { parseFlagNumbers, type RunFlags } from "./run-resolve.js";

/** The flags `passk run --voice` adds. */
export interface VoiceRunFlags {
  voice?: boolean;
  voiceAgent: string;
  voiceAgentUrl?: string;
  agentStt: string;
  agentTts: string;
  userVoice: string;
  speechComplexity: string;
  tickDuration: string;
  clock: "virtual" | "realtime";
  maxCallSeconds: string;
  audio: boolean;
  audioTaps?: boolean;
  substituteMissingNoise?: boolean;
}

export function withVoiceOptions(command: Command): Command {
  return command
    .option("--voice", "a full-duplex voice run (τ-voice): the customer calls the agent on the phone")
    .option(
      "--voice-agent <spec>",
      "with --voice: openai:MODEL, azure:DEPLOYMENT, xai:MODEL (OpenAI Realtime protocol), gemini:MODEL (Gemini Live), cascaded, or ws:URL (your own agent)",
      "openai:gpt-realtime",
    )
    .option(
      "--voice-agent-url <url>",
      "with --voice: the realtime endpoint's WebSocket URL (Azure, a proxy, a mock)",
    )
    .option(
      "--agent-stt <spec>",
      "with --voice-agent cascaded: the transcription model",
      "openai:gpt-4o-transcribe",
    )
    .option(
      "--agent-tts <spec>",
      "with --voice-agent cascaded: the agent's speech model",
      "openai:gpt-4o-mini-tts",
    )
    .option(
      "--user-voice <spec>",
      "with --voice: the customer's speech model (openai:gpt-4o-mini-tts, elevenlabs:eleven_v3, espeak-ng:en-us)",
      "openai:gpt-4o-mini-tts",
    )
    .addOption(
      new Option(
        "--speech-complexity <level>",
        "with --voice: the caller's audio conditions (tasks_voice.json)",
      )
        .choices(SPEECH_COMPLEXITIES)
        .default("control"),
    )
    .option("--tick-duration <seconds>", "with --voice: length of a tick", String(DEFAULT_TICK_SECONDS))
    .addOption(
      new Option(
        "--clock <clock>",
        "with --voice: realtime paces ticks by the wall clock (real providers); virtual runs as fast as it can (mocks)",
      )
        .choices(["realtime", "virtual"])
        .default("realtime"),
    )
    .option("--max-call-seconds <seconds>", "with --voice: longest call, in call time", "1200")
    .option(
      "--substitute-missing-noise",
      "with --voice: stand in for noise recordings the data dir lacks (offline), and say so; not τ-voice-comparable",
    )
    .option("--no-audio", "with --voice: do not write both.wav and the label tracks of each call")
    .option(
      "--audio-taps",
      "with --voice: also record each call's audio at each stage (clean speech, after the effects, on the line, heard by the agent, said by the agent) into audio/taps/",
    );
}

function positive(flag: string, value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new ConfigError(`${flag} ${value}: give a positive number`);
  return number;
}

/** `passk run --voice`'s flags as the library's voice run spec (its numbers checked as a text run's). */
function voiceRunSpec(flags: RunFlags & VoiceRunFlags): VoiceRunStartSpec {
  const numbers = parseFlagNumbers(flags);
  const domains = flags.domain ?? [];
  if (domains.length !== 1)
    throw new ConfigError("a voice run takes exactly one --domain (airline, retail, …)");
  return {
    ...voiceSpecFlags(flags),
    domain: domains[0]!,
    split: flags.taskSplitName,
    ...(flags.taskIds ? { taskIds: flags.taskIds } : {}),
    ...(numbers.numTasks !== undefined ? { numTasks: numbers.numTasks } : {}),
    numTrials: numbers.numTrials,
    seed: numbers.seed,
    maxConcurrency: numbers.maxConcurrency,
  };
}

/**
 * What `run --voice` and `simulate --voice` share, as the library's spec fields: the call's settings,
 * its agent (`--voice-agent`, or `--agent-llm` for a cascade) and customer, its data and results folders.
 */
export function voiceSpecFlags(
  flags: VoiceRunFlags & Partial<ModelFlags> & { data?: string; saveTo?: string },
) {
  if (!flags.userLlm)
    throw new ConfigError("--voice needs --user-llm: the model that writes what the customer says");
  return {
    speechComplexity: flags.speechComplexity as VoiceRunStartSpec["speechComplexity"],
    tickSeconds: positive("--tick-duration", flags.tickDuration),
    clock: flags.clock,
    maxCallSeconds: positive("--max-call-seconds", flags.maxCallSeconds),
    voiceAgent: flags.voiceAgent,
    ...(flags.voiceAgentUrl ? { voiceAgentUrl: flags.voiceAgentUrl } : {}),
    agentStt: flags.agentStt,
    agentTts: flags.agentTts,
    userVoice: flags.userVoice,
    audio: flags.audio,
    audioTaps: flags.audioTaps ?? false,
    substituteMissingNoise: flags.substituteMissingNoise ?? false,
    ...(flags.agentLlm ? { agent: modelSpecOfFlags(flags, "agent", flags.agentLlm) } : {}),
    user: modelSpecOfFlags(flags, "user", flags.userLlm),
    ...(flags.data !== undefined ? { dataDir: flags.data } : {}),
    ...(flags.saveTo ? { saveTo: flags.saveTo } : {}),
  } satisfies Partial<VoiceRunStartSpec>;
}

/** `passk run --voice`: one domain's tasks × trials as phone calls, written in the reference's directory format. */
export async function voiceRunCommand(flags: RunFlags & VoiceRunFlags, context: CliContext): Promise<number> {
  const spec = voiceRunSpec(flags);
  // Loaded for voice runs only: the realtime providers' SDKs cost a text run's start seconds.
  const { startVoiceRun } = await import("../../runner/start-voice-run.js");
  const outcome = await startVoiceRun(spec, {
    ...runOptionsOf(context),
    ...(flags.prices !== undefined ? { priceOverrides: loadPriceOverrides(flags.prices) } : {}),
    onStart: (start) =>
      println(
        context,
        `${start.resume ? "continuing" : "starting"} voice run in ${start.saveTo} · ${start.domain} · ${start.tasks.length} task(s) × ${start.numTrials} trial(s) · ` +
          `agent ${flags.voiceAgent} · customer ${flags.userLlm} speaking with ${flags.userVoice} · ${flags.speechComplexity} · ${flags.clock} clock`,
      ),
    onCall: (call) => println(context, describeCall(call)),
  });
  const substituted = [...new Set(outcome.calls.flatMap((call) => call.noiseSubstitutions))];
  if (substituted.length > 0)
    println(
      context,
      `noise recordings missing from the data dir were substituted (${substituted.join(", ")}): these calls are not τ-voice-comparable; \`passk data pull\` with network fetches the recordings`,
    );
  if (outcome.skipped > 0) println(context, `${outcome.skipped} call(s) were already on disk and were kept`);
  const passes = Object.entries(outcome.passHatK)
    .map(([k, value]) => `pass^${k} ${value.toFixed(3)}`)
    .join(" · ");
  println(
    context,
    `average reward ${outcome.averageReward === null ? "n/a" : outcome.averageReward.toFixed(3)}${passes ? ` · ${passes}` : ""} · ${describeVoiceRunCost(outcome.cost)} · results in ${outcome.folder} (passk report ${outcome.folder} for the interaction metrics)`,
  );
  const failed = outcome.calls.filter((call) => call.systemFailure !== undefined).length;
  return failed > 0 ? 3 : 0;
}

function describeCall(call: VoiceCallOutcome): string {
  const what =
    call.systemFailure !== undefined
      ? `not graded — ${call.systemFailure}`
      : `reward ${call.reward} (${call.terminationReason})${call.explanation ? ` — ${call.explanation}` : ""}`;
  return `task ${call.taskId} trial ${call.trial}: ${what}`;
}
