import { mulaw } from "alawmulaw";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentView } from "../core/agent.js";
import type { ToolCall, ToolMessage } from "../core/message.js";
import type { Task } from "../core/task.js";
import { toolSpecs } from "../env/tool-schema.js";
import { OpenAiRealtimeAgent } from "../voice/agents/openai-realtime.js";
import { WIRE_SAMPLE_RATE, silentTick, wireBytesPerTick } from "../voice/call.js";
import { goldVoicePolicy } from "./gold-voice-policy.js";
import { startMockRealtimeServer, type MockRealtimeServer } from "./mock-realtime-server.js";
import { SYMBOL_SECONDS, speakTestSpeech } from "./speech-codec.js";
import { fixtureDomainData } from "./tau2-fixtures.js";

// A whole airline call over real sockets: the caller's words as test speech on the μ-law wire, the
// OpenAI Realtime adapter, the mock server hearing them through the codec and playing the task's gold
// actions, the tools run in a real world. Clean audio: the gold calls. Frames lost over the user id: the
// mock mishears it and calls with what it heard.

const TICK = 0.2;
const airline = fixtureDomainData("airline");
const task = airline.task("1");
const USER_ID = "raj_sanchez_7340";

function callerWords(t: Task): string {
  const instructions = t.user_scenario.instructions;
  if (typeof instructions === "string") return instructions;
  return `${instructions.reason_for_call} ${instructions.known_info ?? ""}`.replace(/\s+/g, " ").trim();
}

const servers: MockRealtimeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

interface CallRecord {
  toolCalls: ToolCall[];
  results: ToolMessage[];
  agentText: string;
  heard: string[];
}

/**
 * The caller says their piece once, then listens. `noise` may add to their voice (PCM) before the line's
 * μ-law, `damage` may then silence some of the wire audio.
 */
async function call(
  damage: (wire: Uint8Array) => void = () => {},
  noise: (speech: Int16Array) => void = () => {},
): Promise<CallRecord> {
  const mock = await startMockRealtimeServer({ brain: () => goldVoicePolicy(task) });
  servers.push(mock);
  const world = airline.newWorld();
  const view: AgentView = {
    policy: airline.policy,
    tools: toolSpecs(airline.domain.agent.tools),
    solo: false,
    seed: 1,
    history: [{ role: "assistant", content: "Hi! How can I help you today?" }],
  };
  const voice = new OpenAiRealtimeAgent({ apiKey: "sk-mock", url: mock.url, timeoutMs: 20_000 });
  await voice.start({ view, tickSeconds: TICK, clock: "virtual" });
  const speech = speakTestSpeech(callerWords(task), WIRE_SAMPLE_RATE);
  noise(speech);
  const wire = mulaw.encode(speech);
  damage(wire);
  const perTick = wireBytesPerTick(TICK);
  const record: CallRecord = { toolCalls: [], results: [], agentText: "", heard: [] };
  let toolResults: ToolMessage[] = [];
  try {
    for (let t = 0; t < 400 && !record.agentText.endsWith("Done."); t++) {
      const chunk = wire.subarray(t * perTick, (t + 1) * perTick);
      const audio = silentTick(TICK);
      audio.set(chunk);
      const out = await voice.tick({ audio, toolResults });
      record.agentText += out.text;
      toolResults = out.toolCalls.map((c) => {
        const result = world.callTool({ name: c.name, arguments: c.arguments, requestor: "assistant" });
        return {
          id: c.id,
          role: "tool",
          content: result.content,
          requestor: "assistant",
          error: result.error,
        };
      });
      record.toolCalls.push(...out.toolCalls);
      record.results.push(...toolResults);
    }
  } finally {
    await voice.stop();
  }
  record.heard = [...mock.calls[0]!.heard];
  return record;
}

describe("gold voice policy behind the mock realtime server (airline task 1)", () => {
  it("hears the caller's clean audio and makes the gold calls, their results reaching it", async () => {
    const words = callerWords(task);
    expect(words).toContain(USER_ID);
    const { toolCalls, results, agentText, heard } = await call();
    expect(heard).toEqual([words]);
    const gold = task.evaluation_criteria!.actions!;
    expect(toolCalls.map((c) => [c.name, c.arguments])).toEqual(gold.map((a) => [a.name, a.arguments]));
    expect(results.map((r) => r.error)).toEqual(gold.map(() => false));
    expect(results[0]!.content).toContain("Raj");
    expect(agentText).toBe("Done.");
  });

  it("mishears the user id when frames carrying it are lost on the line, and calls with what it heard", async () => {
    const words = callerWords(task);
    const at = new TextEncoder().encode(words.slice(0, words.indexOf(USER_ID))).length;
    const symbol = SYMBOL_SECONDS * WIRE_SAMPLE_RATE;
    const { toolCalls, results, heard } = await call((wire) => {
      // Three 20 ms frames lost from the start of the id's sixth byte (the "a" of "sanchez").
      for (const ms of [0, 20, 40]) {
        const from = (at + 5) * symbol + (ms * WIRE_SAMPLE_RATE) / 1000;
        wire.fill(0xff, from, from + (20 * WIRE_SAMPLE_RATE) / 1000);
      }
    });
    expect(heard).toHaveLength(1);
    expect(heard[0]).not.toContain(USER_ID);
    const asked = toolCalls[0]!;
    expect(asked.name).toBe("get_user_details");
    const misheard = asked.arguments.user_id as string;
    expect(misheard).not.toBe(USER_ID);
    expect(heard[0]).toContain(misheard);
    expect(misheard.slice(0, 4)).toBe("raj_");
    expect(results[0]!.error).toBe(true);
  });

  it("mishears the user id under a loud burst over it", async () => {
    const words = callerWords(task);
    const at = new TextEncoder().encode(words.slice(0, words.indexOf(USER_ID))).length;
    const symbol = SYMBOL_SECONDS * WIRE_SAMPLE_RATE;
    const { toolCalls, heard } = await call(undefined, (speech) => {
      // A 120 ms burst of loud noise (a fixed pseudo-random sequence) from the id's tenth byte on.
      let state = 12345;
      const from = (at + 9) * symbol;
      for (let i = from; i < from + 0.12 * WIRE_SAMPLE_RATE; i++) {
        state = (state * 1103515245 + 12345) % 2 ** 31;
        const burst = ((state / 2 ** 31) * 2 - 1) * 24000;
        speech[i] = Math.max(-32768, Math.min(32767, Math.round(speech[i]! + burst)));
      }
    });
    expect(heard[0]).not.toContain(USER_ID);
    const misheard = toolCalls[0]!.arguments.user_id as string;
    expect(misheard).not.toBe(USER_ID);
    expect(heard.join(" ")).toContain(misheard);
  });

  it("serves a run: picks the task whose scenario the caller's first turn matches", () => {
    const tasks = airline.tasks.slice(0, 10);
    for (const id of ["1", "2", "5"]) {
      const chosen = airline.task(id);
      const brain = goldVoicePolicy(tasks);
      const turn = brain.respond({ kind: "heard", text: callerWords(chosen) });
      const first = chosen.evaluation_criteria!.actions![0]!;
      expect(turn?.toolCalls).toEqual([{ name: first.name, arguments: first.arguments }]);
    }
    expect(goldVoicePolicy(tasks).respond({ kind: "heard", text: "" })).toBeUndefined();
  });
});
