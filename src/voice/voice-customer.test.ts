import type { SpeechModel } from "./speech-models.js";
import { describe, expect, it } from "vitest";
import type { LanguageModel, LlmRequest, LlmResponse, LlmToolCall } from "../core/llm.js";
import { fixtureDomainData, tau2DataDir } from "../testing/tau2-fixtures.js";
import { silentTick } from "./call.js";
import {
  llmVoiceCustomer,
  readVoiceGuidelines,
  spreadText,
  type LlmVoiceCustomerOptions,
  type VoiceCustomer,
  type VoiceCustomerTick,
} from "./voice-customer.js";

// The voice customer's turn-taking, tick by tick, against the reference's thresholds at 0.2 s ticks:
// answer after 1 s of the agent's silence and 5 s of its own, yield after 1 s when the agent talks over
// it, hold for 5 s when it barged in itself, backchannel while the agent talks.

const task = fixtureDomainData("airline").task("11");
const TICK = 0.2;

/** 16 kHz audio, 50 ms per character. */
const speech: SpeechModel = {
  spec: "fake:tts",
  provider: "fake",
  model: "tts",
  voice: "plain",
  async speak(text) {
    return { samples: new Int16Array(Math.round(text.length * 0.05 * 16000)).fill(2500), sampleRate: 16000 };
  },
};

function model(reply: (request: LlmRequest, n: number) => { text?: string; toolCalls?: LlmToolCall[] }) {
  const requests: LlmRequest[] = [];
  const m: LanguageModel & { requests: LlmRequest[] } = {
    spec: "fake:customer",
    requests,
    async generate(request): Promise<LlmResponse> {
      requests.push(request);
      const r = reply(request, requests.length);
      return {
        text: r.text ?? null,
        toolCalls: r.toolCalls ?? [],
        usage: { promptTokens: 1, completionTokens: 1 },
        cost: 0,
      };
    },
  };
  return m;
}

const LONG =
  "I would like to change the flights of my reservation to a later date, please, if that is possible today.";

async function customer(
  options: Partial<LlmVoiceCustomerOptions> & { model: LanguageModel },
): Promise<VoiceCustomer> {
  const c = llmVoiceCustomer({ speech, guidelines: readVoiceGuidelines(tau2DataDir()), ...options });
  await c.start({ task, scenario: task.user_scenario, tools: [], seed: 3, tickSeconds: TICK });
  return c;
}

const silent = { text: "", containsSpeech: false };
const talking = { text: "and so on ", containsSpeech: true };

async function run(c: VoiceCustomer, agent: { text: string; containsSpeech: boolean }, n: number) {
  const out: VoiceCustomerTick[] = [];
  for (let i = 0; i < n; i++) out.push(await c.tick({ agent, toolResults: [] }));
  return out;
}

const actions = (ticks: VoiceCustomerTick[]) => ticks.map((t) => t.chunk.turn_taking_action?.action);

describe("the voice customer's turn-taking", () => {
  it("opens only after 5 s of its own silence, then speaks its utterance tick by tick on the wire", async () => {
    const c = await customer({ model: model(() => ({ text: "Hello, I need help." })) });
    const ticks = await run(c, silent, 40);
    expect(actions(ticks).slice(0, 26)).toEqual(Array(26).fill("wait"));
    expect(ticks[26]!.chunk.turn_taking_action!.action).toBe("generate_message");
    // 19 characters at 50 ms: 0.95 s, five ticks of speech; the wire carries sound only then.
    const spoken = ticks.filter((t) => t.chunk.contains_speech);
    expect(spoken).toHaveLength(5);
    expect(spoken.map((t) => t.chunk.content).join("")).toBe("Hello, I need help.");
    expect(new Set(spoken.map((t) => t.chunk.utterance_ids![0])).size).toBe(1);
    expect(spoken.at(-1)!.chunk.is_final_chunk).toBe(true);
    expect(ticks.every((t) => t.wire.length === 1600)).toBe(true);
    expect(ticks[25]!.wire).toEqual(silentTick(TICK));
    expect(spoken.every((t) => t.wire.some((b) => b !== 0xff))).toBe(true);
    expect(actions(ticks).slice(27, 31)).toEqual(Array(4).fill("keep_talking"));
    // A second call with the same customer starts afresh.
    await c.start({ task, scenario: task.user_scenario, tools: [], seed: 3, tickSeconds: TICK });
    const again = await run(c, silent, 27);
    expect(actions(again)).toEqual([...Array(26).fill("wait"), "generate_message"]);
    expect(again[26]!.chunk.utterance_ids).toEqual(spoken[0]!.chunk.utterance_ids);
  });

  it("yields after 1 s when the agent talks over it", async () => {
    const c = await customer({ model: model(() => ({ text: LONG })) });
    const before = await run(c, silent, 30);
    expect(before[26]!.chunk.turn_taking_action!.action).toBe("generate_message");
    const overlap = await run(c, talking, 8);
    expect(actions(overlap)).toEqual([
      "keep_talking",
      "keep_talking",
      "keep_talking",
      "keep_talking",
      "stop_talking",
      "wait",
      "wait",
      "wait",
    ]);
    expect(overlap[0]!.chunk.turn_taking_action!.info).toBe(
      "Interruption below threshold (when_interrupted), ignore",
    );
    expect(overlap[4]!.chunk.contains_speech).toBe(false);
    expect(overlap[3]!.chunk.contains_speech).toBe(true);
  });

  it("without the persona's interruptions it listens while the agent talks", async () => {
    const m = model(() => ({ text: "Yes." }));
    const c = await customer({ model: m });
    const ticks = await run(c, talking, 60);
    expect(new Set(actions(ticks))).toEqual(new Set(["wait"]));
    expect(m.requests).toHaveLength(0);
  });

  it("an interrupting persona barges in when the model says so, and holds its ground for 5 s", async () => {
    const decisions = model(() => ({ text: "YES" }));
    const c = await customer({
      model: model(() => ({ text: LONG + " " + LONG })),
      decisionModel: decisions,
      interrupts: true,
    });
    const ticks = await run(c, talking, 36);
    // Decisions every 2 s (10 ticks): the first says to interrupt.
    expect(decisions.requests).toHaveLength(1);
    expect(ticks[9]!.chunk.turn_taking_action).toMatchObject({
      action: "generate_message",
      info: "Callback decided to interrupt.",
    });
    expect(ticks[9]!.chunk.contains_speech).toBe(true);
    // It barged in: it keeps talking through 24 ticks of overlap and stops at the 25th.
    expect(actions(ticks.slice(10, 34))).toEqual(Array(24).fill("keep_talking"));
    expect(ticks[10]!.chunk.turn_taking_action!.info).toContain("when_interrupting");
    expect(ticks[34]!.chunk.turn_taking_action!.action).toBe("stop_talking");
    expect(actions(ticks.slice(35))).toEqual(["wait"]);
  });

  it("backchannels while the agent talks (Poisson between 3 s and 12 s), and a backchannel is not interrupted", async () => {
    const c = await customer({
      model: model(() => ({ text: "Yes." })),
      llmBackchannel: false,
      turnTaking: { backchannelMinSeconds: 3 },
    });
    const ticks = await run(c, talking, 80);
    const first = actions(ticks).indexOf("backchannel");
    expect(first).toBeGreaterThanOrEqual(14);
    expect(first).toBeLessThanOrEqual(60);
    const chunk = ticks[first]!.chunk;
    expect(chunk.contains_speech).toBe(true);
    expect(chunk.turn_taking_action!.info).toMatch(/^Poisson backchannel/);
    if (!chunk.is_final_chunk)
      expect(ticks[first + 1]!.chunk.turn_taking_action!.info).toBe("Backchannel in progress");
  });

  it("calls its own tools, waits for the results, and speaks about them from the next tick", async () => {
    const m = model((request, n) =>
      n === 1
        ? { toolCalls: [{ id: "u1", name: "check_phone", arguments: {}, argumentsText: "{}" }] }
        : { text: `I see ${request.messages.at(-1)?.role === "tool" ? "the result" : "nothing"}.` },
    );
    const c = await customer({ model: m });
    const ticks = await run(c, silent, 27);
    expect(ticks[26]!.toolCalls.map((t) => t.name)).toEqual(["check_phone"]);
    expect(ticks[26]!.toolCalls[0]!.requestor).toBe("user");
    expect(ticks[26]!.chunk.contains_speech).toBe(false);
    // Waiting: silence, no model call, until the results come.
    await run(c, silent, 2);
    expect(m.requests).toHaveLength(1);
    const answered = await c.tick({
      agent: silent,
      toolResults: [{ id: "u1", role: "tool", content: "all good", requestor: "user", error: false }],
    });
    expect(m.requests).toHaveLength(2);
    expect(m.requests[1]!.messages.at(-1)).toMatchObject({
      role: "tool",
      toolCallId: "u1",
      content: "all good",
    });
    expect(answered.chunk.contains_speech).toBe(false);
    const next = await c.tick({ agent: silent, toolResults: [] });
    expect(next.chunk.turn_taking_action!.action).toBe("keep_talking");
    expect(next.chunk.contains_speech).toBe(true);
  });

  it("backchannels when the decision model says so (the task's use_llm_backchannel)", async () => {
    const decisions = model(() => ({ text: "YES" }));
    const c = await customer({
      model: model(() => ({ text: "Yes." })),
      decisionModel: decisions,
      llmBackchannel: true,
    });
    const ticks = await run(c, talking, 10);
    expect(actions(ticks.slice(0, 9))).toEqual(Array(9).fill("wait"));
    expect(ticks[9]!.chunk.turn_taking_action).toMatchObject({
      action: "backchannel",
      info: "Callback decided to backchannel.",
    });
    expect(ticks[9]!.chunk.turn_taking_action!.backchannel_check_seconds).toBeTypeOf("number");
    expect(ticks[9]!.chunk.contains_speech).toBe(true);
    // The decision read what the agent has said so far.
    expect(decisions.requests[0]!.messages[0]!.content).toContain("AGENT: and so on");
  });

  it("speaks 24 kHz audio from the speech model, resampled to the wire's 8 kHz", async () => {
    const pcm: SpeechModel = {
      ...speech,
      async speak(text) {
        return {
          samples: new Int16Array(Math.round(text.length * 0.05 * 24000)).fill(2500),
          sampleRate: 24000,
        };
      },
    };
    const c = await customer({
      model: model(() => ({ text: "Hello, I need help." })),
      speech: pcm,
    });
    const ticks = await run(c, silent, 40);
    // 0.95 s of speech: five ticks.
    expect(ticks.filter((t) => t.chunk.contains_speech)).toHaveLength(5);
  });

  it("spreads an utterance's text over its ticks, every character once, in order", () => {
    expect(spreadText("abcdef", 3)).toEqual(["ab", "cd", "ef"]);
    expect(spreadText("ab", 4)).toEqual(["a", "", "b", ""]);
    expect(spreadText("", 2)).toEqual(["", ""]);
  });
});
