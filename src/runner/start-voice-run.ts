import { existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { createAgent } from "../agents/create-agent.js";
import type { Task } from "../core/task.js";
import { ConfigError } from "../core/errors.js";
import type { AnyDomain } from "../env/domain.js";
import { builtinDomains, getDomain } from "../domains/registry.js";
import { resolveDataDir } from "../formats/tau2/data-dir.js";
import { DomainCatalog } from "../formats/tau2/domain-catalog.js";
import type { PriceOverrides } from "../llm/cost.js";
import { createLanguageModel } from "../llm/create-language-model.js";
import { DEFAULT_TICK_SECONDS } from "../voice/call.js";
import { parseVoiceAgentSpec, voiceAgentFactory } from "../voice/agents/voice-agent-spec.js";
import { createSpeechModel, createTranscriptionModel, personaVoice } from "../voice/speech-models.js";
import { llmVoiceCustomer, readVoiceGuidelines } from "../voice/voice-customer.js";
import { loadTasksVoice, SPEECH_COMPLEXITIES, type TasksVoiceFile } from "../voice/voice-settings.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { selectRunTasks } from "./run-plan.js";
import { ModelSpecSchema } from "./start-run.js";
import {
  runVoiceCalls,
  type VoiceCallOutcome,
  type VoiceRunOutcome,
  type VoiceRunParticipants,
  type VoiceRunSpec,
} from "./voice-run.js";

/**
 * What a voice run is, as a library user (or `passk run --voice`) writes it: one domain's tasks × trials
 * as phone calls, the voice agent under test, and the customer's text and speech models. The same
 * settings as the CLI's flags, with the same defaults, typed.
 */
export const VoiceRunStartSpecSchema = z.strictObject({
  domain: z.string().min(1, { error: "one domain, e.g. 'airline'" }),
  taskIds: z.array(z.string()).min(1).optional(),
  /** The task split; where the domain has none (or not this one), all its tasks. */
  split: z.string().default("base"),
  numTasks: z.number().int().min(1).optional(),
  numTrials: z.number().int().min(1).max(1000).default(1),
  seed: z.number().int().refine(Number.isSafeInteger).default(300),
  /** The caller's audio conditions (`tasks_voice.json`): `control`, `regular` or an ablation. */
  speechComplexity: z.enum(SPEECH_COMPLEXITIES).default("control"),
  tickSeconds: z.number().positive().default(DEFAULT_TICK_SECONDS),
  /** `realtime` paces ticks by the wall clock (real providers); `virtual` runs as fast as it can (mocks). */
  clock: z.enum(["realtime", "virtual"]).default("realtime"),
  maxCallSeconds: z.number().positive().default(1200),
  maxConcurrency: z.number().positive().default(3),
  /** The voice agent: `openai:MODEL`, `azure:DEPLOYMENT`, `xai:MODEL`, `gemini:MODEL`, `cascaded` or `ws:URL`. */
  voiceAgent: z.string().default("openai:gpt-realtime"),
  /** The realtime endpoint's WebSocket URL (Azure, a proxy, a mock). */
  voiceAgentUrl: z.string().optional(),
  /** A `cascaded` agent's text agent, transcription and speech models. */
  agent: ModelSpecSchema.optional(),
  agentStt: z.string().default("openai:gpt-4o-transcribe"),
  agentTts: z.string().default("openai:gpt-4o-mini-tts"),
  /** The model that writes what the customer says. */
  user: ModelSpecSchema,
  /** The customer's speech model. */
  userVoice: z.string().default("openai:gpt-4o-mini-tts"),
  /** The τ² data directory: by default `PASSK_DATA_DIR` or where `passk data pull` puts it. */
  dataDir: z.string().optional(),
  /** The run's directory (reference format); continued when it holds a run already. */
  saveTo: z.string().optional(),
  /** Write both.wav and the label tracks of each call. */
  audio: z.boolean().default(true),
  /** Also record each call's audio at each stage of the pipeline (`audio/taps/`). */
  audioTaps: z.boolean().default(false),
  /** Stand in for noise recordings the data dir lacks (offline), and say so; not τ-voice-comparable. */
  substituteMissingNoise: z.boolean().default(false),
});
export type VoiceRunStartSpec = z.input<typeof VoiceRunStartSpecSchema>;

/** What a voice run is about to do, told before its first call. */
export interface VoiceRunStart {
  saveTo: string;
  resume: boolean;
  domain: string;
  tasks: readonly Task[];
  numTrials: number;
  agentInfo: VoiceRunParticipants["agentInfo"];
}

export interface StartVoiceRunOptions {
  /** API keys and `PASSK_*` settings; by default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Your own domains beside the built-in ones (`defineDomain`). */
  domains?: ReadonlyMap<string, AnyDomain>;
  /** Domain data already parsed. */
  catalog?: DomainCatalog;
  /** Prices for models the price table lacks or prices differently (`--prices`), audio rates included. */
  priceOverrides?: PriceOverrides;
  onStart?: (start: VoiceRunStart) => void;
  onCall?: (call: VoiceCallOutcome) => void;
  signal?: AbortSignal;
}

type ParsedSpec = z.output<typeof VoiceRunStartSpecSchema>;
/** The settings that make a call's participants (a run's or a simulation's). */
type ParticipantSpec = Pick<
  ParsedSpec,
  "voiceAgent" | "voiceAgentUrl" | "agent" | "agentStt" | "agentTts" | "user" | "userVoice"
>;
type Env = Readonly<Record<string, string | undefined>>;

/**
 * The voice agent and customer of a voice run, made from their specs: keys and URLs are checked now,
 * before any call. A fresh agent and customer are made for each call.
 */
export function buildVoiceParticipants(
  spec: ParticipantSpec,
  dataDir: string,
  env: Env,
  priceOverrides?: PriceOverrides,
): VoiceRunParticipants {
  const priced = priceOverrides ? { priceOverrides } : {};
  const agentFactory = voiceAgentFactory(parseVoiceAgentSpec(spec.voiceAgent), {
    env,
    ...(spec.voiceAgentUrl ? { url: spec.voiceAgentUrl } : {}),
    cascade: () => {
      if (!spec.agent)
        throw new ConfigError("--voice-agent cascaded needs --agent-llm: the text agent's model");
      return {
        agent: createAgent(spec.agent.model, {
          env,
          ...priced,
          ...(spec.agent.baseUrl ? { baseUrl: spec.agent.baseUrl } : {}),
          ...(spec.agent.args ? { args: spec.agent.args } : {}),
        }),
        transcription: createTranscriptionModel(spec.agentStt, { env }),
        speech: createSpeechModel(spec.agentTts, { env }),
      };
    },
  });
  const userModel = createLanguageModel(spec.user.model, {
    role: "user",
    env,
    ...priced,
    ...(spec.user.baseUrl ? { baseUrl: spec.user.baseUrl } : {}),
    ...(spec.user.args ? { args: spec.user.args } : {}),
  });
  const userVoice = createSpeechModel(spec.userVoice, { env });
  const guidelines = readVoiceGuidelines(dataDir);
  const voiceOf = (persona: string | null | undefined): { voice?: string } => {
    const chosen = persona ? personaVoice(persona, userVoice.provider, env) : undefined;
    return chosen ? { voice: chosen.voice } : {};
  };
  return {
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
        ...voiceOf(settings.persona_name),
        guidelines,
        line,
        speechEffects: settings.speech_effects_config,
        interrupts: settings.persona_config?.interrupt_tendency === "interrupts",
        llmBackchannel: settings.use_llm_backchannel,
      }),
    customerInfo: { implementation: "passk_voice_customer", llm: spec.user.model },
    customerVoice: (settings) => voiceOf(settings.persona_name).voice ?? userVoice.voice,
  };
}

/** What every voice call of a run or a simulation needs, resolved from a spec: its data and participants. */
export interface PreparedVoiceCalls<Spec> {
  spec: Spec;
  env: Env;
  dataDir: string;
  data: DomainData;
  voiceSettings: TasksVoiceFile;
  participants: VoiceRunParticipants;
}

/**
 * Check a voice spec (a run's or a simulation's) and resolve what its calls need — the domain's data,
 * its voice settings and the participants, keys and URLs checked — or refuse it with a sentence.
 */
export function prepareVoiceCalls<
  Schema extends z.ZodType<ParticipantSpec & { domain: string; dataDir?: string | undefined }>,
>(
  schema: Schema,
  what: string,
  spec: z.input<Schema>,
  options: Pick<StartVoiceRunOptions, "env" | "domains" | "catalog" | "priceOverrides">,
): PreparedVoiceCalls<z.output<Schema>> {
  const parsed = schema.safeParse(spec);
  if (!parsed.success)
    throw new ConfigError(
      `the ${what} spec is not valid: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(spec)"}: ${i.message}`).join("; ")}`,
    );
  const s = parsed.data;
  const env = options.env ?? process.env;
  const dataDir = resolveDataDir(s.dataDir, env);
  const known = new Map([...builtinDomains, ...(options.domains ?? [])]);
  const data = (options.catalog ?? new DomainCatalog()).load(getDomain(s.domain, known), { dataDir });
  const voiceSettings = loadTasksVoice(dataDir, s.domain);
  const participants = buildVoiceParticipants(s, dataDir, env, options.priceOverrides);
  return { spec: s, env, dataDir, data, voiceSettings, participants };
}

/**
 * Start a voice run and wait for it: each call is written to `saveTo` in the reference's directory
 * format as it ends; started again on the same directory, the run continues (finished calls are kept).
 * Everything that can be wrong — the spec, the data, the models and their keys — is refused with a
 * sentence before the first call.
 */
export async function startVoiceRun(
  spec: VoiceRunStartSpec,
  options: StartVoiceRunOptions = {},
): Promise<VoiceRunOutcome> {
  const {
    spec: s,
    dataDir,
    data,
    voiceSettings,
    participants,
  } = prepareVoiceCalls(VoiceRunStartSpecSchema, "voice run", spec, options);
  const tasks = selectRunTasks(
    data,
    {
      split: s.split,
      ...(s.taskIds ? { taskIds: s.taskIds } : {}),
      ...(s.numTasks !== undefined ? { numTasks: s.numTasks } : {}),
    },
    { splitIsDefault: true },
  );
  const saveTo = path.resolve(
    s.saveTo ?? `passk-voice-${s.domain}-${s.speechComplexity}-${new Date().toISOString().slice(0, 10)}`,
  );
  const resume = existsSync(path.join(saveTo, "results.json"));
  options.onStart?.({
    saveTo,
    resume,
    domain: s.domain,
    tasks,
    numTrials: s.numTrials,
    agentInfo: participants.agentInfo,
  });
  const run: VoiceRunSpec = {
    data,
    tasks,
    numTrials: s.numTrials,
    seed: s.seed,
    voiceSettings,
    speechComplexity: s.speechComplexity,
    tickSeconds: s.tickSeconds,
    clock: s.clock,
    maxCallSeconds: s.maxCallSeconds,
    maxConcurrency: s.maxConcurrency,
    saveTo,
    resume,
    dataDir,
    audio: s.audio,
    audioTaps: s.audioTaps,
    noiseSubstitutes: s.substituteMissingNoise,
    ...(options.priceOverrides ? { pricing: { overrides: options.priceOverrides } } : {}),
  };
  return runVoiceCalls(run, participants, {
    ...(options.onCall ? { onCall: options.onCall } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}
