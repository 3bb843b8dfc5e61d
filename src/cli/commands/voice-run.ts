import { existsSync } from "node:fs";
import path from "node:path";
import { Option, type Command } from "commander";
import { createAgent } from "../../agents/create-agent.js";
import { ConfigError } from "../../core/errors.js";
import { resolveDataDir } from "../../formats/tau2/data-dir.js";
import { createLanguageModel } from "../../llm/create-language-model.js";
import { selectRunTasks } from "../../runner/run-plan.js";
import { runVoiceCalls, type VoiceCallOutcome, type VoiceRunOutcome } from "../../runner/voice-run.js";
import { loadPriceOverrides } from "../../llm/cost.js";
import { DEFAULT_TICK_SECONDS } from "../../voice/call.js";
import { parseVoiceAgentSpec, voiceAgentFactory } from "../../voice/agents/voice-agent-spec.js";
import { createSpeechModel, createTranscriptionModel, personaVoice } from "../../voice/speech-models.js";
import { llmVoiceCustomer, readVoiceGuidelines } from "../../voice/voice-customer.js";
import { loadTasksVoice, SPEECH_COMPLEXITIES } from "../../voice/voice-settings.js";
import { loadDomain, println, type CliContext } from "../context.js";
import type { RunFlags } from "./run-resolve.js";

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
    .option("--no-audio", "with --voice: do not write both.wav and the label tracks of each call");
}

function positive(flag: string, value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new ConfigError(`${flag} ${value}: give a positive number`);
  return number;
}

/** `passk run --voice`: one domain's tasks × trials as phone calls, written in the reference's directory format. */
export async function voiceRunCommand(flags: RunFlags & VoiceRunFlags, context: CliContext): Promise<number> {
  const domains = flags.domain ?? [];
  if (domains.length !== 1)
    throw new ConfigError("a voice run takes exactly one --domain (airline, retail, …)");
  const domain = domains[0]!;
  if (!flags.userLlm)
    throw new ConfigError("--voice needs --user-llm: the model that writes what the customer says");
  const dataDir = resolveDataDir(flags.data, context.env);
  const data = loadDomain(context, domain, flags.data !== undefined ? { data: flags.data } : {});
  const tasks = selectRunTasks(
    data,
    {
      split: flags.taskSplitName,
      ...(flags.taskIds ? { taskIds: flags.taskIds } : {}),
      ...(flags.numTasks ? { numTasks: Number(flags.numTasks) } : {}),
    },
    { splitIsDefault: true },
  );
  const voiceSettings = loadTasksVoice(dataDir, domain);
  const env = context.env;
  const priceOverrides = flags.prices !== undefined ? loadPriceOverrides(flags.prices) : undefined;
  const priced = priceOverrides ? { priceOverrides } : {};
  const agentFactory = voiceAgentFactory(parseVoiceAgentSpec(flags.voiceAgent), {
    env,
    ...(flags.voiceAgentUrl ? { url: flags.voiceAgentUrl } : {}),
    cascade: () => {
      if (!flags.agentLlm)
        throw new ConfigError("--voice-agent cascaded needs --agent-llm: the text agent's model");
      return {
        agent: createAgent(flags.agentLlm, {
          env,
          ...priced,
          ...(flags.agentLlmBaseUrl ? { baseUrl: flags.agentLlmBaseUrl } : {}),
        }),
        transcription: createTranscriptionModel(flags.agentStt, { env }),
        speech: createSpeechModel(flags.agentTts, { env }),
      };
    },
  });
  const userModel = createLanguageModel(flags.userLlm, {
    role: "user",
    env,
    ...priced,
    ...(flags.userLlmBaseUrl ? { baseUrl: flags.userLlmBaseUrl } : {}),
  });
  const userVoice = createSpeechModel(flags.userVoice, { env });
  const guidelines = readVoiceGuidelines(dataDir);
  const saveTo = path.resolve(
    flags.saveTo ??
      `passk-voice-${domain}-${flags.speechComplexity}-${new Date().toISOString().slice(0, 10)}`,
  );
  const resume = existsSync(path.join(saveTo, "results.json"));
  const numTrials = Number(flags.numTrials);
  println(
    context,
    `${resume ? "continuing" : "starting"} voice run in ${saveTo} · ${domain} · ${tasks.length} task(s) × ${numTrials} trial(s) · ` +
      `agent ${flags.voiceAgent} · customer ${flags.userLlm} speaking with ${flags.userVoice} · ${flags.speechComplexity} · ${flags.clock} clock`,
  );
  const outcome = await runVoiceCalls(
    {
      data,
      tasks,
      numTrials,
      seed: Number(flags.seed),
      voiceSettings,
      speechComplexity: flags.speechComplexity,
      tickSeconds: positive("--tick-duration", flags.tickDuration),
      clock: flags.clock,
      maxCallSeconds: positive("--max-call-seconds", flags.maxCallSeconds),
      maxConcurrency: positive("--max-concurrency", flags.maxConcurrency),
      saveTo,
      resume,
      dataDir,
      audio: flags.audio,
      noiseSubstitutes: flags.substituteMissingNoise ?? false,
      ...(priceOverrides ? { pricing: { overrides: priceOverrides } } : {}),
    },
    {
      agent: agentFactory.make,
      agentInfo: {
        implementation: "passk_voice_agent",
        llm: `${agentFactory.provider}:${agentFactory.model}`,
        provider: agentFactory.provider,
        model: agentFactory.model,
      },
      customer: ({ settings, line }) =>
        llmVoiceCustomer({
          model: userModel,
          speech: userVoice,
          ...(priceOverrides ? { pricing: { overrides: priceOverrides } } : {}),
          ...voiceOf(settings.persona_name, userVoice.provider, env),
          guidelines,
          line,
          interrupts: settings.persona_config?.interrupt_tendency === "interrupts",
          llmBackchannel: settings.use_llm_backchannel,
        }),
      customerInfo: { implementation: "passk_voice_customer", llm: flags.userLlm },
      customerVoice: (settings) =>
        voiceOf(settings.persona_name, userVoice.provider, env).voice ?? userVoice.voice,
    },
    { onCall: (call) => println(context, describeCall(call)) },
  );
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
    `average reward ${outcome.averageReward === null ? "n/a" : outcome.averageReward.toFixed(3)}${passes ? ` · ${passes}` : ""} · ${describeCost(outcome.cost)} · results in ${outcome.folder} (passk report ${outcome.folder} for the interaction metrics)`,
  );
  const failed = outcome.calls.filter((call) => call.systemFailure !== undefined).length;
  return failed > 0 ? 3 : 0;
}

function voiceOf(
  persona: string | null | undefined,
  provider: string,
  env: Readonly<Record<string, string | undefined>>,
): { voice?: string } {
  if (!persona) return {};
  const chosen = personaVoice(persona, provider, env);
  return chosen ? { voice: chosen.voice } : {};
}

/** The run's cost line: each side's total over the calls on disk, or why it is unknown. */
export function describeCost(cost: VoiceRunOutcome["cost"]): string {
  const side = (name: string, total: number | null, unknown: string | undefined) =>
    total !== null ? `${name} $${total.toFixed(4)}` : `${name} unknown (${unknown ?? "no usage"})`;
  const both =
    cost.agent !== null && cost.user !== null ? `cost $${(cost.agent + cost.user).toFixed(4)}: ` : "cost: ";
  return (
    both +
    [side("agent", cost.agent, cost.agentUnknown), side("customer", cost.user, cost.userUnknown)].join(", ")
  );
}

function describeCall(call: VoiceCallOutcome): string {
  const what =
    call.systemFailure !== undefined
      ? `not graded — ${call.systemFailure}`
      : `reward ${call.reward} (${call.terminationReason})${call.explanation ? ` — ${call.explanation}` : ""}`;
  return `task ${call.taskId} trial ${call.trial}: ${what}`;
}
