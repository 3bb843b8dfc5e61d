import type { SpeechModel } from "./speech-models.js";
import { describe, expect, it } from "vitest";
import { goldFinalMessage } from "../agents/gold-agent.js";
import type { LanguageModel, LlmRequest, LlmResponse } from "../core/llm.js";
import type { ToolCall } from "../core/message.js";
import type { Task } from "../core/task.js";
import { fixtureDomainData, tau2DataDir } from "../testing/tau2-fixtures.js";
import { mulawEncode } from "./audio.js";
import { silentTick, wireBytesPerTick, type VoiceAgent, type VoiceAgentTickOutput } from "./call.js";
import { simulateVoiceCall, type VoiceCallSetup } from "./full-duplex-call.js";
import { VoiceSimulationSchema } from "../formats/tau2/voice-results.js";
import { computeInteractionMetrics } from "../metrics/interaction-metrics.js";
import { gradeVoiceCall } from "./linearize.js";
import { llmVoiceCustomer, readVoiceGuidelines, spreadText } from "./voice-customer.js";

// A whole call through the tick loop with in-process fakes: a speech model whose audio lasts in
// proportion to its text, a customer model that reads what it heard, and an agent that plays the task's
// gold actions by ear (it answers once the caller has spoken and gone quiet).

const data = fixtureDomainData("airline");
const TICK = 0.2;
const BYTES = wireBytesPerTick(TICK);

/** A speech model giving 16 kHz audio, 50 ms per character of text (never silent). */
function fakeSpeech(options: { fail?: boolean } = {}): SpeechModel {
  return {
    spec: "fake:tts",
    provider: "fake",
    model: "tts",
    voice: "plain",
    async speak(text) {
      if (options.fail) throw new Error("503 Service Unavailable");
      const samples = new Int16Array(Math.round(text.length * 0.05 * 16000)).map((_, i) =>
        Math.round(3000 * Math.sin(i / 5)),
      );
      return { samples, sampleRate: 16000 };
    },
  };
}

/** The customer's model: opens with the reason for the call, stops once it has heard `done`. */
function customerModel(task: Task, done: string): LanguageModel & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  const instructions = task.user_scenario.instructions;
  const reason = typeof instructions === "string" ? instructions : instructions.reason_for_call;
  return {
    spec: "fake:customer",
    requests,
    async generate(request): Promise<LlmResponse> {
      requests.push(request);
      const heard = request.messages.some((m) => m.role === "user" && m.content.includes(done));
      const text =
        requests.length === 1 ? reason : heard ? "Thanks, that is all. ###STOP###" : "Please go on.";
      return { text, toolCalls: [], usage: { promptTokens: 1, completionTokens: 1 }, cost: 0.001 };
    },
  };
}

const loud = (audio: Uint8Array) => audio.some((b) => b !== 0xff);
const speechTick = (seconds: number) =>
  mulawEncode(new Int16Array(wireBytesPerTick(seconds)).map((_, i) => Math.round(2000 * Math.sin(i / 3))));

interface AgentLog {
  tick: number;
  resultIds: string[];
  heardSpeech: boolean;
}

/** An agent playing the gold actions: one call a tick once the caller went quiet, then the final message. */
function goldVoiceAgent(task: Task, log: AgentLog[], options: { crashAt?: number } = {}): VoiceAgent {
  const actions = (task.evaluation_criteria?.actions ?? []).filter((a) => a.requestor === "assistant");
  let phase: "listen" | "tools" | "speak" | "done" = "listen";
  let heard = false;
  let quiet = 0;
  let next = 0;
  let speech: string[] = [];
  let tick = 0;
  let tickSeconds = TICK;
  const silent = (toolCalls: ToolCall[] = []): VoiceAgentTickOutput => ({
    audio: silentTick(tickSeconds),
    text: "",
    containsSpeech: false,
    toolCalls,
  });
  return {
    name: "gold-voice",
    async start(setup) {
      tickSeconds = setup.tickSeconds;
    },
    async stop() {},
    async tick(input) {
      tick++;
      if (options.crashAt === tick) throw new TypeError("the agent crashed");
      log.push({ tick, resultIds: input.toolResults.map((r) => r.id), heardSpeech: loud(input.audio) });
      if (phase === "listen") {
        if (loud(input.audio)) {
          heard = true;
          quiet = 0;
        } else if (heard && ++quiet >= 3) phase = "tools";
      }
      if (phase === "tools") {
        if (next < actions.length) {
          const action = actions[next]!;
          return silent([
            { id: `call_${next++}`, name: action.name, arguments: action.arguments, requestor: "assistant" },
          ]);
        }
        const final = goldFinalMessage(task);
        speech = spreadText(final, Math.ceil(final.length / 10));
        phase = "speak";
      }
      if (phase === "speak") {
        const text = speech.shift()!;
        if (speech.length === 0) phase = "done";
        return { audio: speechTick(tickSeconds), text, containsSpeech: true, toolCalls: [] };
      }
      return silent();
    },
  };
}

function callSetup(task: Task, agent: VoiceAgent, customer = customerFor(task)): VoiceCallSetup {
  return {
    task,
    world: data.newWorld({ task }),
    agent,
    customer,
    policy: data.policyFor(task),
    agentTools: [],
    userTools: [],
    tickSeconds: TICK,
    seed: 7,
  };
}

function customerFor(task: Task, speech = fakeSpeech()) {
  return llmVoiceCustomer({
    model: customerModel(task, goldFinalMessage(task)),
    speech,
    guidelines: readVoiceGuidelines(tau2DataDir()),
  });
}

describe("a full-duplex voice call", () => {
  // Airline task 11: change reservation GV1N64's flights; the agent must say "5244".
  const task = data.task("11");

  it("plays a whole airline task through the ticks and earns reward 1.0, graded as the reference grades voice", async () => {
    const log: AgentLog[] = [];
    const { simulation, audio } = await simulateVoiceCall(callSetup(task, goldVoiceAgent(task, log)));
    expect(simulation.termination_reason).toBe("user_stop");
    expect(simulation.mode).toBe("full_duplex");
    const { ticks } = simulation;
    // The ticks in the reference's shape, each side's wire audio one tick per tick.
    expect(Object.keys(ticks[1]!).sort()).toEqual(
      [
        "tick_id",
        "timestamp",
        "agent_chunk",
        "user_chunk",
        "agent_tool_calls",
        "user_tool_calls",
        "agent_tool_results",
        "user_tool_results",
        "user_transcript",
        "tick_duration_seconds",
        "wall_clock_duration_seconds",
      ].sort(),
    );
    expect(ticks.map((t) => t.tick_id)).toEqual(ticks.map((_, i) => i));
    expect(audio.user).toHaveLength(ticks.length);
    expect(audio.agent).toHaveLength(ticks.length);
    expect(audio.user.every((a) => a.length === BYTES)).toBe(true);
    // The customer waited out the reference's 5 s of its own silence before opening.
    const opening = ticks.findIndex((t) => t.user_chunk?.contains_speech);
    expect(opening).toBe(26);
    expect(ticks[opening]!.user_chunk!.turn_taking_action!.action).toBe("generate_message");
    expect(loud(audio.user[opening]!)).toBe(true);
    // Tool results reach the agent exactly one tick after its call.
    const calls = ticks.filter((t) => t.agent_tool_calls.length > 0);
    expect(calls.length).toBe(
      task.evaluation_criteria!.actions!.filter((a) => a.requestor === "assistant").length,
    );
    for (const t of calls) {
      const id = t.agent_tool_calls[0]!.id;
      expect(t.agent_tool_results.map((r) => r.id)).toEqual([id]);
      expect(log.find((l) => l.tick === t.tick_id)!.resultIds).toEqual([]);
      expect(log.find((l) => l.tick === t.tick_id + 1)!.resultIds).toEqual([id]);
    }
    // The agent heard the caller's audio of the previous tick.
    expect(log.find((l) => l.tick === opening + 1)!.heardSpeech).toBe(true);
    expect(log.find((l) => l.tick === opening)!.heardSpeech).toBe(false);

    // The record's messages: the conversation linearised from the agent's side.
    const said = simulation.messages.flatMap((m) =>
      m.role !== "tool" && m.content ? [`${m.role}: ${m.content}`] : [],
    );
    expect(said[0]).toBe(
      `user: ${(task.user_scenario.instructions as { reason_for_call: string }).reason_for_call}`,
    );
    expect(said).toContain(`assistant: ${goldFinalMessage(task)}`);
    expect(said.at(-1)).toBe("user: Thanks, that is all. ###STOP###");
    expect(simulation.messages.filter((m) => m.role === "tool")).toHaveLength(calls.length);

    const reward = await gradeVoiceCall(task, simulation, { newWorld: (o) => data.newWorld(o) });
    expect(reward.reward_breakdown).toEqual({ DB: 1, COMMUNICATE: 1 });
    expect(reward.reward).toBe(1);
    // The final message spans ticks; its chunks share one utterance and merge into one message.
    expect(reward.communicate_checks![0]!.justification).toContain(goldFinalMessage(task));
    // The record reads as the reference's directory format does, and its interaction metrics count the
    // agent's one answer to the caller's request.
    const written = VoiceSimulationSchema.parse(JSON.parse(JSON.stringify(simulation)));
    const metrics = computeInteractionMetrics([written]);
    expect(metrics.counts.response_total).toBe(1);
    expect(metrics.response_rate).toBe(1);
    // The caller's two turns (the request, the goodbye): the agent answered the first (the reference's
    // responsiveness info; the goodbye ends the call unanswered).
    expect(simulation.info).toEqual({
      total_user_turns: 2,
      total_agent_turns: 1,
      max_unresponded_user_turns: 1,
      had_unresponsive_period: false,
      // Neither side can be priced: the scripted agent meters nothing, the fake speech model has no price.
      agent_cost_unknown: "gold-voice reported no usage to price",
      user_cost_unknown: "fake:tts is not in the price table (pass --prices FILE)",
    });
    expect(simulation.agent_cost).toBeNull();
    expect(simulation.user_cost).toBeNull();
  });

  it("graded 0 when the agent's final utterance is never said", async () => {
    const log: AgentLog[] = [];
    const { simulation } = await simulateVoiceCall({
      ...callSetup(task, goldVoiceAgent(task, log)),
      maxCallSeconds: 9,
    });
    expect(simulation.termination_reason).toBe("max_steps");
    expect(simulation.ticks).toHaveLength(9 / TICK + 1);
    const reward = await gradeVoiceCall(task, simulation, { newWorld: (o) => data.newWorld(o) });
    expect(reward.reward).toBe(0);
  });

  it("ends on the agent's transfer (agent_stop), marking its chunk with the stop token", async () => {
    const transfer: VoiceAgent = {
      name: "transfer",
      async start() {},
      async stop() {},
      async tick() {
        return {
          audio: silentTick(TICK),
          text: "",
          containsSpeech: false,
          toolCalls: [
            {
              id: "t",
              name: "transfer_to_human_agents",
              arguments: { summary: "help" },
              requestor: "assistant",
            },
          ],
        };
      },
    };
    const { simulation } = await simulateVoiceCall(callSetup(task, transfer));
    expect(simulation.termination_reason).toBe("agent_stop");
    expect(simulation.ticks).toHaveLength(2);
    expect(simulation.ticks[1]!.agent_chunk!.content).toBe("###STOP###");
  });

  it("stops after too many tool errors", async () => {
    const wrong: VoiceAgent = {
      name: "wrong",
      async start() {},
      async stop() {},
      async tick() {
        return {
          audio: silentTick(TICK),
          text: "",
          containsSpeech: false,
          toolCalls: [{ id: "x", name: "no_such_tool", arguments: {}, requestor: "assistant" }],
        };
      },
    };
    const { simulation } = await simulateVoiceCall({ ...callSetup(task, wrong), maxErrors: 3 });
    expect(simulation.termination_reason).toBe("too_many_errors");
    expect(simulation.ticks).toHaveLength(4);
    expect(simulation.ticks[3]!.agent_tool_results[0]!.error).toBe(true);
  });

  it("a failing speech provider is an infrastructure error, never the agent's", async () => {
    const { simulation } = await simulateVoiceCall(
      callSetup(task, goldVoiceAgent(task, []), customerFor(task, fakeSpeech({ fail: true }))),
    );
    expect(simulation.termination_reason).toBe("infrastructure_error");
    expect(simulation.info?.error).toMatch(/speech model failed.*503/);
    expect(simulation.info?.fault).toBeUndefined();
  });

  it("paces each tick to its length on the realtime clock", async () => {
    const began = performance.now();
    const { simulation } = await simulateVoiceCall({
      ...callSetup(task, goldVoiceAgent(task, [])),
      tickSeconds: 0.05,
      maxCallSeconds: 0.25,
      clock: "realtime",
    });
    expect(simulation.termination_reason).toBe("max_steps");
    expect(simulation.ticks).toHaveLength(6);
    // Four of the five ticks wait out their length (the last ends the call); timers may fire a little early.
    expect(performance.now() - began).toBeGreaterThanOrEqual(190);
  });

  it("the customer's own failure is the simulator's, not the agent's", async () => {
    const broken = llmVoiceCustomer({
      model: {
        spec: "fake:broken",
        generate: () => Promise.reject(new SyntaxError("the customer's script is broken")),
      },
      speech: fakeSpeech(),
      guidelines: readVoiceGuidelines(tau2DataDir()),
    });
    const { simulation } = await simulateVoiceCall(callSetup(task, goldVoiceAgent(task, []), broken));
    expect(simulation.termination_reason).toBe("infrastructure_error");
    expect(simulation.info).toMatchObject({ fault: "user_simulator", error_type: "UserSimulatorError" });
    expect(simulation.ticks).toHaveLength(26);
  });

  it("the agent's own crash is the agent's error", async () => {
    const { simulation } = await simulateVoiceCall(callSetup(task, goldVoiceAgent(task, [], { crashAt: 4 })));
    expect(simulation.termination_reason).toBe("agent_error");
    expect(simulation.info).toMatchObject({ error: "the agent crashed", error_type: "TypeError" });
    expect(simulation.ticks).toHaveLength(4);
  });
});
