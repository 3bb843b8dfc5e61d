import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldFinalMessage } from "../src/agents/gold-agent.js";
import type { Task } from "../src/core/task.js";
import { startMockLlmServer, type MockLlmServer } from "../src/testing/mock-llm-server.js";
import { mockReply, type MockLlmReply, type MockUsage } from "../src/testing/mock-llm-reply.js";
import { startMockRealtimeServer, type MockRealtimeServer } from "../src/testing/mock-realtime-server.js";
import { startMockSpeechServer, type MockSpeechServer } from "../src/testing/mock-speech-server.js";
import { goldVoicePolicy } from "../src/testing/gold-voice-policy.js";
import { goldVoiceAgentScript } from "../src/testing/gold-voice-script.js";
import { isUserSimulatorRequest } from "../src/testing/gold-model.js";
import { fixtureDomainData, tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { voiceSessionCost } from "../src/voice/voice-cost.js";
import { PriceOverridesSchema, priceUsage } from "../src/llm/cost.js";
import { runCliInProcess } from "./helpers/run-cli-in-process.js";

// What a voice call costs: the usage each provider metered, priced with the price table's audio rates
// and `--prices`. Every expected sum is computed here from what the mock servers sent (tokens per
// response, characters spoken, seconds heard) times the prices written in this file.

const PRICES = {
  models: {
    // Odd rates per meter, so a meter priced at another's rate changes the sum.
    "openai:gpt-realtime": {
      input_mtok: 1.5,
      cache_read_mtok: 0.25,
      output_mtok: 3,
      input_audio_mtok: 7,
      cache_audio_read_mtok: 0.5,
      output_audio_mtok: 11,
    },
    "openai:gpt-4o-mini-tts": { input_mtok: 0.6, output_mtok: 12, input_mchars: 13 },
    "openai:gpt-4o-transcribe": { input_mtok: 2.5, output_mtok: 10, input_audio_hours: 0.9 },
    "openai-compatible:mock-user": { input_mtok: 2, output_mtok: 5 },
    "openai-compatible:mock-agent": { input_mtok: 4, output_mtok: 9 },
  },
};

describe("voiceSessionCost", () => {
  it("prices audio, text and cached tokens at their own rates, and sums per model", () => {
    const records = [
      {
        source: "openai-realtime",
        model: "openai:gpt-realtime",
        inputTextTokens: 1000,
        inputAudioTokens: 300,
        cachedInputTextTokens: 640,
        cachedInputAudioTokens: 128,
        outputTextTokens: 40,
        outputAudioTokens: 200,
      },
      {
        source: "openai-realtime",
        model: "openai:gpt-realtime",
        inputTextTokens: 1100,
        inputAudioTokens: 350,
        outputTextTokens: 10,
        outputAudioTokens: 90,
      },
    ];
    const result = voiceSessionCost(records, { overrides: PRICES });
    const p = PRICES.models["openai:gpt-realtime"];
    const expected =
      ((1000 - 640 + 1100) * p.input_mtok +
        640 * p.cache_read_mtok +
        (300 - 128 + 350) * p.input_audio_mtok +
        128 * p.cache_audio_read_mtok +
        50 * p.output_mtok +
        290 * p.output_audio_mtok) /
      1e6;
    expect(result.cost).toBeCloseTo(expected, 12);
    expect(result.usage.num_raw_records).toBe(2);
    expect(result.usage.records).toHaveLength(1);
    expect(result.usage.records[0]).toMatchObject({
      provider: "openai",
      model: "gpt-realtime",
      component: "realtime",
      input_tokens: 2750,
      input_audio_tokens: 650,
      input_cached_tokens: 768,
      output_audio_tokens: 290,
    });
    expect(result.usage.cost_breakdown).toEqual({ "realtime:openai/gpt-realtime": result.cost });
  });

  it("prices transcription by the hour of audio and speech by the character; espeak-ng is free", () => {
    const result = voiceSessionCost(
      [
        { source: "transcription", model: "openai:gpt-4o-transcribe", audioSeconds: 12.5 },
        { source: "transcription", model: "openai:gpt-4o-transcribe", audioSeconds: 7.5 },
        { source: "speech", model: "openai:gpt-4o-mini-tts", characters: 1234, audioSeconds: 80 },
        { source: "speech", model: "espeak-ng:en-us", characters: 99 },
      ],
      { overrides: PRICES },
    );
    expect(result.cost).toBeCloseTo((20 * 0.9) / 3600 + (1234 * 13) / 1e6, 12);
    expect(result.usage.cost_breakdown).toMatchObject({ "tts:espeak-ng/en-us": 0 });
  });

  it("an unknown model, or a meter its price lacks, makes the cost unknown with the reason, never 0", () => {
    const unknown = voiceSessionCost([
      { source: "openai-realtime", model: "openai:my-own-realtime", inputAudioTokens: 10 },
    ]);
    expect(unknown.cost).toBeNull();
    expect(unknown.usage.cost).toBeNull();
    expect(unknown.unknown).toContain("openai:my-own-realtime is not in the price table");
    // A text-only price does not price audio tokens at the text rate.
    const textOnly = voiceSessionCost(
      [{ source: "openai-realtime", model: "openai:text-only", inputAudioTokens: 10, outputTextTokens: 3 }],
      { overrides: { models: { "openai:text-only": { input_mtok: 1, output_mtok: 1 } } } },
    );
    expect(textOnly.cost).toBeNull();
    expect(textOnly.unknown).toContain("audio input tokens (input_audio_mtok)");
    // A speech model priced by the token has no price for the characters a speech endpoint bills.
    const tts = voiceSessionCost([{ source: "speech", model: "openai:tts-1", characters: 10 }]);
    expect(tts.cost).toBeNull();
    // The table's own audio rates: gpt-realtime's are there.
    const table = voiceSessionCost([
      {
        source: "openai-realtime",
        model: "openai:gpt-realtime",
        inputAudioTokens: 1000,
        outputAudioTokens: 1000,
      },
    ]);
    expect(table.cost).toBeGreaterThan(0);
  });

  it("a realtime agent billed by the minute: the session's seconds at its per-minute rate, its tokens informational", () => {
    const ticks = Array.from({ length: 450 }, () => ({
      source: "openai-realtime",
      model: "xai:grok-voice-think-fast-1.0",
      sessionSeconds: 0.2,
    }));
    const tokens = {
      source: "openai-realtime",
      model: "xai:grok-voice-think-fast-1.0",
      inputAudioTokens: 900,
    };
    const priced = voiceSessionCost([...ticks, tokens]);
    // 90 s at xAI's published $0.05 a minute.
    expect(priced.cost).toBeCloseTo((90 / 60) * 0.05, 12);
    expect(priced.usage.records).toEqual([
      expect.objectContaining({
        provider: "xai",
        audio_input_seconds: expect.closeTo(90, 9),
        billable: true,
      }),
      expect.objectContaining({ input_audio_tokens: 900, billable: false }),
    ]);
    // A model passk has no per-minute price for: unknown, with the fix; never 0.
    const other = voiceSessionCost([
      { source: "openai-realtime", model: "xai:grok-voice-beta", sessionSeconds: 60 },
    ]);
    expect(other.cost).toBeNull();
    expect(other.unknown).toContain("xai:grok-voice-beta is billed per minute of session");
    expect(other.unknown).toContain('"realtime_minutes"');
    // --prices sets it (and overrides passk's own rate).
    const set = voiceSessionCost(
      [{ source: "openai-realtime", model: "xai:grok-voice-beta", sessionSeconds: 30 }],
      { overrides: { models: { "xai:grok-voice-beta": { realtime_minutes: 0.12 } } } },
    );
    expect(set.cost).toBeCloseTo(0.06, 12);
    // A per-minute price alone does not make a model's tokens free.
    expect(
      priceUsage({
        provider: "xai",
        model: "grok-voice-beta",
        lookup: { providerId: "x-ai" },
        usage: { inputTokens: 1000, outputTokens: 10 },
        overrides: { models: { "xai:grok-voice-beta": { realtime_minutes: 0.12 } } },
      }).cost,
    ).toBeNull();
    expect(() => PriceOverridesSchema.parse({ models: { m: { cache_read_mtok: 1 } } })).toThrow(
      /realtime_minutes/,
    );
  });
});

/** The customer: opens with the reason for the call, stops at the gold goodbye. */
function customerScript(tasks: readonly Task[]) {
  return (request: { system: string; messages: { role: string; content?: unknown }[] }) => {
    if (request.system.startsWith("You decide how a caller")) return mockReply.text("NO");
    const task = tasks.find((t) => request.system.includes(firstLine(t)));
    if (!task) return mockReply.text("Sorry, wrong number. ###STOP###");
    const heard = request.messages.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n");
    if (request.messages.length <= 1 && !heard.trim()) return mockReply.text(scenarioText(task));
    if (heard.includes(goldFinalMessage(task))) return mockReply.text("Thank you, goodbye. ###STOP###");
    return mockReply.text("Okay.");
  };
}

function scenarioText(task: Task): string {
  const instructions = task.user_scenario.instructions;
  return typeof instructions === "string"
    ? instructions
    : [instructions.reason_for_call, instructions.known_info ?? ""].join(" ");
}

function firstLine(task: Task): string {
  const instructions = task.user_scenario.instructions;
  return (typeof instructions === "string" ? instructions : instructions.reason_for_call)
    .split("\n")[0]!
    .slice(0, 60);
}

interface WrittenSimulation {
  seed: number;
  speech_environment?: Record<string, unknown>;
  effect_timeline?: {
    events: {
      effect_type: string;
      start_ms: number;
      end_ms: number | null;
      duration_ms: number | null;
      params: Record<string, unknown> | null;
    }[];
  };
  agent_cost: number | null;
  user_cost: number | null;
  agent_usage: { cost: number | null; records: { component: string }[] } | null;
  info: Record<string, unknown>;
  reward_info: { reward: number };
  ticks: {
    tick_id: number;
    user_chunk: {
      cost: number | null;
      usage: Record<string, unknown> | null;
      channel_effects: { frame_drop_ms: number } | null;
      source_effects: { burst_noise_file: string | null } | null;
    } | null;
  }[];
}

function readSimulations(dir: string): WrittenSimulation[] {
  const folder = path.join(dir, "simulations");
  return readdirSync(folder).map(
    (file) => JSON.parse(readFileSync(path.join(folder, file), "utf8")) as WrittenSimulation,
  );
}

describe("a voice run's cost, against mock providers", () => {
  let llm: MockLlmServer;
  let speech: MockSpeechServer;
  let realtime: MockRealtimeServer;
  const task = fixtureDomainData("airline").tasks.find((t) => t.id === "3")!;
  const dir = mkdtempSync(path.join(tmpdir(), "passk-voice-cost-"));
  const pricesFile = path.join(dir, "prices.json");
  /** The usage the agent's mock LLM reported for each of its replies (cascade). */
  const agentUsage: MockUsage[] = [];
  /** The usage the customer's mock LLM reported for each of its replies. */
  const userUsage: MockUsage[] = [];
  /** What the customer's mock LLM said (to tell its speech from the cascade's). */
  const customerTexts = new Set<string>();

  beforeAll(async () => {
    writeFileSync(pricesFile, JSON.stringify(PRICES));
    const customer = customerScript([task]);
    const agent = goldVoiceAgentScript([task]);
    // Scripted usage, different per reply, so each sum below is of what the mock reported.
    const withUsage = (reply: MockLlmReply, log: MockUsage[]): MockLlmReply => {
      if (reply.kind !== "message") return reply;
      const usage = { promptTokens: 1000 + 37 * log.length, completionTokens: 11 + log.length };
      log.push(usage);
      return { ...reply, usage };
    };
    const said = (reply: MockLlmReply) => {
      if (reply.kind === "message" && reply.text) customerTexts.add(reply.text);
      return reply;
    };
    llm = await startMockLlmServer({
      script: (request) =>
        isUserSimulatorRequest(request) || request.system.startsWith("You decide how a caller")
          ? withUsage(said(customer(request)), userUsage)
          : withUsage(agent(request), agentUsage),
      promptCache: false,
    });
    speech = await startMockSpeechServer();
    realtime = await startMockRealtimeServer({ brain: () => goldVoicePolicy([task]) });
  });
  afterAll(async () => {
    await Promise.all([llm?.close(), speech?.close(), realtime?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const args = (saveTo: string, extra: string[]) => [
    "run",
    "--voice",
    "--domain",
    "airline",
    "--task-ids",
    task.id,
    "--num-trials",
    "1",
    "--clock",
    "virtual",
    "--user-llm",
    "openai-compatible:mock-user",
    "--user-llm-base-url",
    llm.url,
    "--user-voice",
    "openai:gpt-4o-mini-tts",
    "--save-to",
    saveTo,
    ...extra,
  ];
  const env = () => ({ OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${speech.url}/v1` });
  const spokenCharacters = (from: number) =>
    speech.requests
      .slice(from)
      .filter((r) => r.kind === "speech")
      .reduce((sum, r) => sum + r.text.length, 0);
  const llmCost = (usages: readonly MockUsage[], price: { input_mtok: number; output_mtok: number }) =>
    usages.reduce(
      (sum, u) => sum + u.promptTokens * price.input_mtok + u.completionTokens * price.output_mtok,
      0,
    ) / 1e6;

  it("a realtime agent: its audio, text and cached tokens; the customer: its model and its speech", async () => {
    const saveTo = path.join(dir, "realtime");
    const speechFrom = speech.requests.length;
    const usersFrom = userUsage.length;
    const result = await runCliInProcess(
      args(saveTo, [
        "--voice-agent",
        "openai:gpt-realtime",
        "--voice-agent-url",
        realtime.url,
        "--prices",
        pricesFile,
      ]),
      env(),
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const [simulation] = readSimulations(saveTo);
    expect(simulation!.reward_info.reward).toBe(1);

    const p = PRICES.models["openai:gpt-realtime"];
    const sent = realtime.calls.flatMap((call) => call.usage);
    expect(sent.length).toBeGreaterThan(1);
    const cached = sent.reduce((sum, u) => sum + (u.input_token_details?.cached_tokens ?? 0), 0);
    expect(cached).toBeGreaterThan(0);
    const agentExpected =
      sent.reduce((sum, u) => {
        const input = u.input_token_details!;
        const details = input.cached_tokens_details!;
        const text = input.text_tokens!;
        const audio = input.audio_tokens!;
        return (
          sum +
          (text - details.text_tokens!) * p.input_mtok +
          details.text_tokens! * p.cache_read_mtok +
          (audio - details.audio_tokens!) * p.input_audio_mtok +
          details.audio_tokens! * p.cache_audio_read_mtok +
          u.output_token_details!.text_tokens! * p.output_mtok +
          u.output_token_details!.audio_tokens! * p.output_audio_mtok
        );
      }, 0) / 1e6;
    expect(simulation!.agent_cost).toBeCloseTo(agentExpected, 12);
    expect(simulation!.agent_usage!.cost).toBe(simulation!.agent_cost);

    const characters = spokenCharacters(speechFrom);
    expect(characters).toBeGreaterThan(0);
    const userExpected =
      llmCost(userUsage.slice(usersFrom), PRICES.models["openai-compatible:mock-user"]) +
      (characters * PRICES.models["openai:gpt-4o-mini-tts"].input_mchars) / 1e6;
    expect(simulation!.user_cost).toBeCloseTo(userExpected, 12);

    const total = agentExpected + userExpected;
    expect(result.stdout).toContain(
      `cost $${total.toFixed(4)}: agent $${agentExpected.toFixed(4)}, customer $${userExpected.toFixed(4)}`,
    );
    const report = await runCliInProcess(["report", saveTo]);
    expect(report.code).toBe(0);
    expect(report.stdout).toContain(`agent $${agentExpected.toFixed(4)}`);
  }, 240_000);

  it("the cascade: transcription by the hour, its LLM's tokens, speech by the character", async () => {
    const saveTo = path.join(dir, "cascaded");
    const speechFrom = speech.requests.length;
    const agentsFrom = agentUsage.length;
    const result = await runCliInProcess(
      args(saveTo, [
        "--voice-agent",
        "cascaded",
        "--agent-llm",
        "openai-compatible:mock-agent",
        "--agent-llm-base-url",
        llm.url,
        "--agent-stt",
        "openai:gpt-4o-transcribe",
        "--agent-tts",
        "openai:gpt-4o-mini-tts",
        "--prices",
        pricesFile,
      ]),
      env(),
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const [simulation] = readSimulations(saveTo);
    expect(simulation!.reward_info.reward).toBe(1);
    const requests = speech.requests.slice(speechFrom);
    const heardSeconds = requests
      .filter((r) => r.kind === "transcription")
      .reduce((sum, r) => sum + r.audioSeconds, 0);
    expect(heardSeconds).toBeGreaterThan(0);
    // The agent's speech: what was spoken that the customer's model did not write.
    const agentChars = requests
      .filter((r) => r.kind === "speech" && !customerTexts.has(r.text))
      .reduce((sum, r) => sum + r.text.length, 0);
    expect(agentChars).toBeGreaterThan(0);
    const agentExpected =
      (heardSeconds * PRICES.models["openai:gpt-4o-transcribe"].input_audio_hours) / 3600 +
      llmCost(agentUsage.slice(agentsFrom), PRICES.models["openai-compatible:mock-agent"]) +
      (agentChars * PRICES.models["openai:gpt-4o-mini-tts"].input_mchars) / 1e6;
    expect(simulation!.agent_cost).toBeCloseTo(agentExpected, 12);
    expect(simulation!.agent_usage!.records.map((r) => r.component).sort()).toEqual(["llm", "stt", "tts"]);
  }, 240_000);

  it("records the caller's environment as used and the effects that fired, tick by tick", async () => {
    const saveTo = path.join(dir, "regular");
    const result = await runCliInProcess(
      args(saveTo, [
        "--voice-agent",
        "openai:gpt-realtime",
        "--voice-agent-url",
        realtime.url,
        "--speech-complexity",
        "regular",
        "--substitute-missing-noise",
        "--num-trials",
        "2",
      ]),
      env(),
    );
    expect(result.code).toBe(0);
    const settings = (
      JSON.parse(readFileSync(path.join(tau2DataDir(), "airline", "tasks_voice.json"), "utf8")) as {
        configs: Record<string, { configs: Record<string, Record<string, unknown>> }>;
      }
    ).configs[task.id]!.configs.regular!;
    const simulations = readSimulations(saveTo);
    expect(simulations).toHaveLength(2);
    let drops = 0;
    let bursts = 0;
    for (const simulation of simulations) {
      const environment = simulation.speech_environment!;
      expect(environment.persona_name).toBe(settings.persona_name);
      expect(environment.complexity).toBe("regular");
      expect(environment.channel_effects_config).toEqual(settings.channel_effects_config);
      expect(environment.source_effects_config).toEqual(settings.source_effects_config);
      expect(environment.voice_seed).toBe(simulation.seed);
      const events = simulation.effect_timeline!.events;
      // Every tick that lost audio on the line has frame drops on the timeline summing to its loss.
      const tickMs = 200;
      for (const tick of simulation.ticks) {
        const lost = tick.user_chunk?.channel_effects?.frame_drop_ms ?? 0;
        const start = tick.tick_id * tickMs;
        const inTick = events
          .filter((e) => e.effect_type === "frame_drop" && e.start_ms >= start && e.start_ms < start + tickMs)
          .reduce((sum, e) => sum + e.duration_ms!, 0);
        expect(Math.abs(inTick - lost)).toBeLessThanOrEqual(1);
        drops += lost > 0 ? 1 : 0;
        // A burst that started in a tick is on the timeline from within that tick, with its file.
        const file = tick.user_chunk?.source_effects?.burst_noise_file;
        if (file) {
          bursts++;
          const burst = events.find(
            (e) => e.effect_type === "burst_noise" && e.start_ms >= start && e.start_ms < start + tickMs,
          );
          expect(burst?.params).toMatchObject({ file });
          expect(burst!.end_ms!).toBeGreaterThan(burst!.start_ms);
        }
      }
      expect(events.map((e) => e.start_ms)).toEqual([...events.map((e) => e.start_ms)].sort((a, b) => a - b));
    }
    // The regular line loses frames on these calls (the settings' drop rate is above 0).
    expect(drops).toBeGreaterThan(0);
    expect(bursts + drops).toBeGreaterThan(0);
  }, 240_000);

  it("an xAI realtime agent is billed by the minute of the call: at passk's rate, or unknown until --prices sets one", async () => {
    const xai = (saveTo: string, model: string, extra: string[] = []) =>
      runCliInProcess(
        args(saveTo, ["--voice-agent", `xai:${model}`, "--voice-agent-url", realtime.url, ...extra]),
        { ...env(), XAI_API_KEY: "xai-test-key-0001" },
      );
    const known = await xai(path.join(dir, "xai"), "grok-voice-think-fast-1.0");
    expect(known.stderr).toBe("");
    expect(known.code).toBe(0);
    const [simulation] = readSimulations(path.join(dir, "xai"));
    expect(simulation!.reward_info.reward).toBe(1);
    // Every tick of the call is a tick of connection: 0.2 s each, at $0.05 a minute.
    const seconds = (simulation!.ticks.length - 1) * 0.2;
    const records = simulation!.agent_usage!.records as unknown as Array<Record<string, unknown>>;
    const time = records.find((r) => r.billable === true)!;
    expect(time.audio_input_seconds).toBeCloseTo(seconds, 9);
    expect(simulation!.agent_cost).toBeCloseTo((seconds / 60) * 0.05, 12);
    // The mock's token counts are kept, as information.
    expect(records.find((r) => r.billable === false)?.input_audio_tokens).toBeGreaterThan(0);

    const unpriced = await xai(path.join(dir, "xai-unpriced"), "grok-voice-beta");
    expect(unpriced.code).toBe(0);
    const [without] = readSimulations(path.join(dir, "xai-unpriced"));
    expect(without!.agent_cost).toBeNull();
    expect(without!.info.agent_cost_unknown).toContain("xai:grok-voice-beta is billed per minute of session");
    expect(unpriced.stdout).toContain("agent unknown (xai:grok-voice-beta is billed per minute of session");

    const prices = path.join(dir, "xai-prices.json");
    writeFileSync(prices, JSON.stringify({ models: { "xai:grok-voice-beta": { realtime_minutes: 0.07 } } }));
    const set = await xai(path.join(dir, "xai-priced"), "grok-voice-beta", ["--prices", prices]);
    expect(set.code).toBe(0);
    const [priced] = readSimulations(path.join(dir, "xai-priced"));
    expect(priced!.agent_cost).toBeCloseTo(((priced!.ticks.length - 1) * 0.2 * 0.07) / 60, 12);
  }, 240_000);

  it("without prices for its models, each side's cost is unknown and says why", async () => {
    const saveTo = path.join(dir, "unpriced");
    const result = await runCliInProcess(
      args(saveTo, ["--voice-agent", "openai:gpt-realtime", "--voice-agent-url", realtime.url]),
      env(),
    );
    expect(result.code).toBe(0);
    const [simulation] = readSimulations(saveTo);
    // gpt-realtime's audio rates are in the table; the customer's mock model and a per-character
    // speech price are not.
    expect(simulation!.agent_cost).toBeGreaterThan(0);
    expect(simulation!.user_cost).toBeNull();
    expect(simulation!.info.user_cost_unknown).toContain(
      "openai:gpt-4o-mini-tts has no price for its characters",
    );
    expect(result.stdout).toContain("customer unknown (");
    // Each reason once, however many utterances gave it.
    const reasons = String(simulation!.info.user_cost_unknown).split("; ");
    expect(reasons.length).toBeGreaterThan(1);
    expect(new Set(reasons).size).toBe(reasons.length);
  }, 240_000);
});
