import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../src/agents/create-agent.js";
import { DEFAULT_FIRST_AGENT_MESSAGE, type Agent } from "../src/core/agent.js";
import { InfrastructureError } from "../src/core/llm.js";
import type { ToolMessage } from "../src/core/message.js";
import { builtinDomains } from "../src/domains/registry.js";
import { toolSpecs } from "../src/env/tool-schema.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { speakTestSpeech, hearTestSpeech } from "../src/testing/speech-codec.js";
import {
  mockReply,
  startMockLlmServer,
  startMockSpeechServer,
  type MockLlmRequest,
  type MockLlmServer,
  type MockSpeechServer,
} from "../src/testing/index.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { mulawDecode, mulawEncode } from "../src/voice/audio.js";
import { cascadedVoiceAgent, type CascadedVoiceAgentOptions } from "../src/voice/agents/cascaded.js";
import {
  WIRE_SAMPLE_RATE,
  silentTick,
  wireBytesPerTick,
  type VoiceAgent,
  type VoiceAgentTickOutput,
} from "../src/voice/call.js";
import { createSpeechModel, createTranscriptionModel } from "../src/voice/speech-models.js";

const SECRET = "sk-test-secret-voice-0123456789";
const env = { OPENAI_API_KEY: SECRET, OPENAI_COMPATIBLE_API_KEY: SECRET };
const TICK = 0.2;
const TICK_BYTES = wireBytesPerTick(TICK);

let llm: MockLlmServer;
let speech: MockSpeechServer;
beforeAll(async () => {
  llm = await startMockLlmServer({ script: [] });
  speech = await startMockSpeechServer();
});
afterAll(async () => {
  await llm.close();
  await speech.close();
});

const airline = new DomainData(builtinDomains.get("airline")!, tau2DataDir());

/** The text agent: passk's LLM agent on the mock model. */
function textAgent(): Agent {
  return createAgent("openai-compatible:mock-agent", {
    baseUrl: llm.baseUrl,
    env,
    retry: { maxAttempts: 1 },
  });
}

function voiceAgent(overrides: Partial<CascadedVoiceAgentOptions> = {}): VoiceAgent {
  return cascadedVoiceAgent({
    agent: textAgent(),
    transcription: createTranscriptionModel("openai:gpt-4o-transcribe", {
      env,
      baseUrl: speech.baseUrl,
      maxRetries: 0,
    }),
    speech: createSpeechModel("openai:gpt-4o-mini-tts", { env, baseUrl: speech.baseUrl, maxRetries: 0 }),
    ...overrides,
  });
}

async function startCall(agent: VoiceAgent, greeting = true): Promise<void> {
  await agent.start({
    view: {
      policy: airline.policy,
      tools: toolSpecs(airline.domain.agent.tools),
      solo: false,
      seed: 0,
      history: greeting ? [{ role: "assistant", content: DEFAULT_FIRST_AGENT_MESSAGE }] : [],
    },
    tickSeconds: TICK,
    clock: "virtual",
  });
}

/**
 * The caller's speech as it goes over the wire: a tick of the line's silence (the agent learns the line's
 * noise floor from it), then the codec's voice at 8 kHz, μ-law, cut into ticks.
 */
function callerTicks(text: string): Uint8Array[] {
  const wire = mulawEncode(speakTestSpeech(text, WIRE_SAMPLE_RATE));
  const ticks: Uint8Array[] = [silentTick(TICK)];
  for (let at = 0; at < wire.length; at += TICK_BYTES) {
    const tick = silentTick(TICK);
    tick.set(wire.subarray(at, Math.min(wire.length, at + TICK_BYTES)));
    ticks.push(tick);
  }
  return ticks;
}

/** Plays the caller's ticks, then silence, until `until` holds (or `max` ticks pass); every output kept. */
async function play(
  agent: VoiceAgent,
  caller: readonly Uint8Array[],
  until: (outputs: readonly VoiceAgentTickOutput[]) => boolean,
  options: { max?: number; toolResults?: (output: VoiceAgentTickOutput) => ToolMessage[] } = {},
): Promise<VoiceAgentTickOutput[]> {
  const outputs: VoiceAgentTickOutput[] = [];
  let toolResults: ToolMessage[] = [];
  for (let i = 0; i < (options.max ?? 400); i++) {
    const output = await agent.tick({ audio: caller[i] ?? silentTick(TICK), toolResults });
    outputs.push(output);
    toolResults = options.toolResults?.(output) ?? [];
    if (i >= caller.length && until(outputs)) break;
  }
  return outputs;
}

const lastUserText = (request: MockLlmRequest) =>
  request.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";

/** Plays the greeting to its end; returns its ticks. */
async function greet(agent: VoiceAgent): Promise<VoiceAgentTickOutput[]> {
  return play(agent, [], (o) => o.length > 1 && !o.at(-1)!.containsSpeech);
}

describe("cascaded voice agent over HTTP (mock transcription and speech, passk's LLM agent on the mock model)", () => {
  it("hears an airline caller, calls the tool with the id it heard, and speaks the reply", async () => {
    const task = airline.task("5");
    const gold = task.evaluation_criteria!.actions![0]!;
    expect(gold.name).toBe("get_user_details");
    const utterance = "hi, i want to complain about my delayed flight hat045. my user id is mei_brown_7075.";
    const reply = "I found your profile, Mei. Which reservation was the delayed flight on?";
    // The model reads what the cascade heard: the user id in its tool call comes from the audio alone.
    llm.setScript((request) => {
      if (request.messages.at(-1)?.role === "tool") return mockReply.text(reply);
      const heard = /user id is ([a-z0-9_]+)/.exec(lastUserText(request));
      return heard ? mockReply.toolCall("get_user_details", { user_id: heard[1] }) : mockReply.text("Sorry?");
    });
    const agent = voiceAgent();
    await startCall(agent);
    const greeting = await greet(agent);
    expect(greeting.map((o) => o.text).join("")).toBe(DEFAULT_FIRST_AGENT_MESSAGE);
    // The greeting's own audio, decoded from the wire, says what its text says.
    expect(hearTestSpeech(mulawDecode(concat(greeting.map((o) => o.audio))), WIRE_SAMPLE_RATE)).toBe(
      DEFAULT_FIRST_AGENT_MESSAGE,
    );

    const world = airline.newWorld({ solo: false });
    const outputs = await play(
      agent,
      callerTicks(utterance),
      (o) => o.some((x) => x.containsSpeech) && !o.at(-1)!.containsSpeech,
      {
        toolResults: (output) =>
          output.toolCalls.map((call) => {
            const result = world.callTool({
              name: call.name,
              arguments: call.arguments,
              requestor: "assistant",
            });
            return {
              id: call.id,
              role: "tool",
              content: result.content,
              requestor: "assistant",
              error: result.error,
            };
          }),
      },
    );
    await agent.stop();

    const heard = speech.requests.filter((r) => r.kind === "transcription").at(-1)!;
    expect(heard.text).toBe(utterance);
    const calls = outputs.flatMap((o) => o.toolCalls);
    expect(calls.map((c) => [c.name, c.arguments, c.requestor])).toEqual([
      [gold.name, gold.arguments, "assistant"],
    ]);
    // The tool's result went back to the model with the call's id.
    const toolMessage = llm.requests.at(-1)!.messages.at(-1)!;
    expect(toolMessage).toMatchObject({
      role: "tool",
      toolName: "get_user_details",
      toolCallId: calls[0]!.id,
    });
    expect(toolMessage.content).toContain("Mei");
    // The reply's transcript is spread over the ticks that play its audio, and the audio says it.
    const spoken = outputs.filter((o) => o.containsSpeech);
    expect(spoken.map((o) => o.text).join("")).toBe(reply);
    expect(spoken.length).toBeGreaterThan(3);
    expect(hearTestSpeech(mulawDecode(concat(spoken.map((o) => o.audio))), WIRE_SAMPLE_RATE)).toBe(reply);
    // Nothing is said while the caller speaks or while the tool runs.
    const firstSpoken = outputs.findIndex((o) => o.containsSpeech);
    expect(outputs.findIndex((o) => o.toolCalls.length > 0)).toBeLessThan(firstSpoken);
    // Usage: seconds transcribed, the LLM's tokens, characters spoken.
    const usage = outputs.flatMap((o) => o.usage ?? []);
    const transcribed = usage.filter((u) => u.source === "transcription");
    expect(transcribed).toHaveLength(1);
    expect(transcribed[0]!.audioSeconds).toBeGreaterThanOrEqual(
      Math.floor(speakTestSpeech(utterance, 8000).length / 8000),
    );
    expect(usage.filter((u) => u.source === "llm")).toHaveLength(2);
    expect(usage.filter((u) => u.source === "llm").every((u) => (u.inputTextTokens ?? 0) > 0)).toBe(true);
    expect(usage.filter((u) => u.source === "speech")).toEqual([
      {
        source: "speech",
        model: "openai:gpt-4o-mini-tts",
        characters: reply.length,
        // The mock speaks the test codec at OpenAI's pcm rate, 24 kHz.
        audioSeconds: speakTestSpeech(reply, 24_000).length / 24_000,
      },
    ]);
  });

  it("stops talking when the caller speaks over it; a short backchannel neither stops it nor is answered", async () => {
    const long =
      "Let me read you the whole baggage policy for your cabin, every allowance and every fee, one item after the other, slowly.";
    llm.setScript([mockReply.text(long), mockReply.text(long), mockReply.text("Sure, I will stop.")]);
    const agent = voiceAgent();
    await startCall(agent, false);
    const requestsBefore = llm.requests.length;

    // Ask a question; the agent starts its long answer.
    let outputs = await play(agent, callerTicks("what is the policy?"), (o) => o.at(-1)!.containsSpeech);
    expect(llm.requests.length).toBe(requestsBefore + 1);
    // "mm-hmm" (well under the barge-in threshold) over its speech: it talks on and does not answer it.
    const backchannel = callerTicks("mm-hmm");
    expect(backchannel.length).toBe(3);
    const transcriptionsBefore = speech.requests.filter((r) => r.kind === "transcription").length;
    outputs = await play(agent, backchannel, (o) => !o.at(-1)!.containsSpeech);
    const fullTicks = outputs.filter((o) => o.containsSpeech);
    expect(fullTicks.map((o) => o.text).join("")).toBe(
      long.slice(long.length - fullTicks.map((o) => o.text).join("").length),
    );
    expect(llm.requests.length).toBe(requestsBefore + 1);
    expect(speech.requests.filter((r) => r.kind === "transcription").length).toBe(transcriptionsBefore);

    // Ask again, then talk over the answer for longer than the threshold: the playback stops early.
    await play(agent, callerTicks("and again?"), (o) => o.at(-1)!.containsSpeech);
    expect(llm.requests.length).toBe(requestsBefore + 2);
    const interruption = callerTicks("stop, stop, please stop, i have heard enough of this.");
    // Until it has stopped, and then answered the interruption to its end.
    outputs = await play(agent, interruption, (o) => {
      const silent = o.findIndex((x) => !x.containsSpeech);
      return silent >= 0 && o.slice(silent).some((x) => x.containsSpeech) && !o.at(-1)!.containsSpeech;
    });
    await agent.stop();
    // Silent from soon after the threshold (0.6 s ≈ 3 ticks + the 100 ms to open the utterance) until it answers.
    const firstSilent = outputs.findIndex((o) => !o.containsSpeech);
    expect(firstSilent).toBeGreaterThan(0);
    expect(firstSilent).toBeLessThanOrEqual(5);
    const cut = outputs
      .slice(0, firstSilent)
      .map((o) => o.text)
      .join("");
    expect(cut.length).toBeLessThan(long.length / 2);
    // The interruption itself is answered once it ends.
    expect(llm.requests.length).toBe(requestsBefore + 3);
    expect(lastUserText(llm.requests.at(-1)!)).toBe("stop, stop, please stop, i have heard enough of this.");
    expect(
      outputs
        .filter((o) => o.containsSpeech)
        .slice(-3)
        .map((o) => o.text)
        .join(""),
    ).toContain("stop.");
  });

  it("on a real-time clock the turn runs beside the ticks: silence until the reply is ready, then the reply", async () => {
    const reply = "One moment please.";
    llm.setScript([mockReply.text(reply), mockReply.text(reply)]);
    const caller = callerTicks("is anyone there?");
    const run = async (clock: "virtual" | "realtime") => {
      const agent = voiceAgent();
      await agent.start({
        view: { policy: airline.policy, tools: [], solo: false, seed: 0, history: [] },
        tickSeconds: TICK,
        clock,
      });
      const outputs: VoiceAgentTickOutput[] = [];
      // Ticks come back to back (the test plays the clock); the turn's HTTP calls finish in between.
      for (let i = 0; i < 3000 && !outputs.some((o) => o.containsSpeech); i++) {
        outputs.push(await agent.tick({ audio: caller[i] ?? silentTick(TICK), toolResults: [] }));
        if (i >= caller.length) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await agent.stop();
      return outputs;
    };
    // A virtual clock answers in the tick where the utterance ended; a real one cannot, it answers later.
    const virtual = await run("virtual");
    const endOfUtterance = virtual.findIndex((o) => o.containsSpeech);
    expect(endOfUtterance).toBeGreaterThanOrEqual(caller.length);
    const realtime = await run("realtime");
    const firstSpoken = realtime.findIndex((o) => o.containsSpeech);
    expect(firstSpoken).toBeGreaterThan(endOfUtterance);
    expect(realtime[firstSpoken]!.text).toBe(virtual[endOfUtterance]!.text);
    expect(realtime.flatMap((o) => o.usage ?? []).map((u) => u.source)).toEqual([
      "transcription",
      "llm",
      "speech",
    ]);
  });

  it("speaks offline with espeak-ng: its 22.05 kHz voice resampled onto the 8 kHz wire, the text over its ticks", async () => {
    const reply = "Your flight to Boston is confirmed.";
    llm.setScript([mockReply.text(reply)]);
    const espeak = createSpeechModel("espeak-ng:en-us");
    const agent = voiceAgent({ speech: espeak });
    await startCall(agent, false);
    const outputs = await play(
      agent,
      callerTicks("book it"),
      (o) => o.some((x) => x.containsSpeech) && !o.at(-1)!.containsSpeech,
    );
    await agent.stop();
    const spoken = outputs.filter((o) => o.containsSpeech);
    expect(spoken.map((o) => o.text).join("")).toBe(reply);
    const own = await espeak.speak(reply);
    expect(spoken.length).toBe(
      Math.ceil(((own.samples.length / own.sampleRate) * WIRE_SAMPLE_RATE) / TICK_BYTES),
    );
    const pcm = mulawDecode(concat(spoken.map((o) => o.audio)));
    const rms = Math.sqrt(pcm.reduce((sum, v) => sum + v * v, 0) / pcm.length);
    expect(rms).toBeGreaterThan(500);
    expect(outputs.flatMap((o) => o.usage ?? []).filter((u) => u.source === "speech")).toEqual([
      {
        source: "speech",
        model: "espeak-ng:en-us",
        characters: reply.length,
        audioSeconds: expect.any(Number),
      },
    ]);
  });

  it("a transcription provider's 500 is an infrastructure failure in a sentence, without the key", async () => {
    llm.setScript([mockReply.text("never asked")]);
    const requestsBefore = llm.requests.length;
    const agent = voiceAgent();
    await startCall(agent, false);
    speech.fail({
      kind: "transcription",
      status: 500,
      message: `upstream exploded (key ${SECRET})`,
      times: 1,
    });
    const failure = await play(agent, callerTicks("hello?"), () => false, { max: 20 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await agent.stop();
    expect(InfrastructureError.isInstance(failure)).toBe(true);
    const message = (failure as Error).message;
    expect(message).toMatch(
      /^transcription model openai:gpt-4o-transcribe failed \(HTTP 500: .*upstream exploded/,
    );
    expect(message).not.toContain(SECRET);
    expect(llm.requests.length).toBe(requestsBefore);
  });

  it("the text agent's own crash is passed on as it is, not as an infrastructure failure", async () => {
    const crash = new Error("the agent's bug");
    const agent = voiceAgent({
      agent: {
        name: "crashing",
        start: () => ({
          respond: () => Promise.reject(crash),
        }),
      },
    });
    await startCall(agent, false);
    const failure = await play(agent, callerTicks("hello?"), () => false, { max: 20 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await agent.stop();
    expect(failure).toBe(crash);
  });
});

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
