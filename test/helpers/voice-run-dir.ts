import { goldFinalMessage } from "../../src/agents/gold-agent.js";
import { runCliInProcess } from "./run-cli-in-process.js";
import type { Task } from "../../src/core/task.js";
import { isUserSimulatorRequest } from "../../src/testing/gold-model.js";
import { goldVoicePolicy } from "../../src/testing/gold-voice-policy.js";
import { mockReply } from "../../src/testing/mock-llm-reply.js";
import { startMockLlmServer } from "../../src/testing/mock-llm-server.js";
import { startMockRealtimeServer } from "../../src/testing/mock-realtime-server.js";
import { startMockSpeechServer } from "../../src/testing/mock-speech-server.js";
import { fixtureDomainData } from "../../src/testing/tau2-fixtures.js";
import { VoiceResultsWriter } from "../../src/voice/results-dir.js";
import {
  quiet,
  scriptedCall,
  simulationRecord,
  syntheticInfo,
  type ScriptedTick,
} from "./synthetic-voice-run.js";

// Real voice runs for the explorer's tests: `passk run --voice` run in-process against the mock realtime
// agent (gold actions by ear), a mock customer LLM and the mock speech endpoint — the same pipeline as
// test/voice-run.test.ts, a few airline calls, so each run directory is what a user's would be.

function scenario(task: Task): { opening: string; text: string; keys: string[] } {
  const instructions = task.user_scenario.instructions;
  if (typeof instructions === "string")
    return { opening: instructions.split("\n")[0]!.slice(0, 60), text: instructions, keys: [instructions] };
  return {
    opening: instructions.reason_for_call.split("\n")[0]!.slice(0, 60),
    text: [instructions.reason_for_call, instructions.known_info ?? ""].join(" "),
    keys: [instructions.known_info ?? "", instructions.reason_for_call.split(".")[0]!],
  };
}

/** The first `n` airline tasks with distinct customers (the mock agent tells calls apart by what is said first). */
export function voiceTestTasks(n: number): Task[] {
  const seen = new Set<string>();
  return fixtureDomainData("airline")
    .tasks.filter((task) => {
      const { keys } = scenario(task);
      if (keys.some((key) => seen.has(key))) return false;
      for (const key of keys) seen.add(key);
      return true;
    })
    .slice(0, n);
}

export interface VoiceRunsMade {
  /** Each run's folder by its speech complexity. */
  folders: Record<string, string>;
  tasks: Task[];
}

/**
 * Run `passk run --voice` for `tasks` × `trials` in airline once per speech complexity, each saved to
 * `<parent>/airline-<complexity>`; `env` is added to the command's environment (`PASSK_DATA_DIR`, …).
 */
export async function makeVoiceRuns(
  parent: string,
  options: { tasks: number; trials: number; complexities: readonly string[]; env?: Record<string, string> },
): Promise<VoiceRunsMade> {
  const tasks = voiceTestTasks(options.tasks);
  const llm = await startMockLlmServer({
    script: (request) => {
      if (!(isUserSimulatorRequest(request) || request.system.startsWith("You decide how a caller")))
        return mockReply.text("Okay.");
      if (request.system.startsWith("You decide how a caller")) return mockReply.text("NO");
      const task = tasks.find((t) => request.system.includes(scenario(t).opening));
      if (!task) return mockReply.text("Sorry, wrong number. ###STOP###");
      const heard = request.messages.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n");
      if (request.messages.length <= 1 && !heard.trim()) return mockReply.text(scenario(task).text);
      if (heard.includes(goldFinalMessage(task))) return mockReply.text("Thank you, goodbye. ###STOP###");
      return mockReply.text("Okay.");
    },
    recordRequests: false,
  });
  const speech = await startMockSpeechServer();
  const realtime = await startMockRealtimeServer({
    brain: () => goldVoicePolicy(tasks),
    apiKey: "sk-realtime-test-key-0001",
  });
  const folders: Record<string, string> = {};
  try {
    for (const complexity of options.complexities) {
      const saveTo = `${parent}/airline-${complexity}`;
      await passkInProcess(
        [
          "run",
          "--voice",
          "--domain",
          "airline",
          "--task-ids",
          ...tasks.map((t) => t.id),
          "--num-trials",
          String(options.trials),
          "--speech-complexity",
          complexity,
          "--clock",
          "virtual",
          "--voice-agent",
          "openai:gpt-realtime",
          "--voice-agent-url",
          realtime.url,
          "--user-llm",
          "openai-compatible:mock-user",
          "--user-llm-base-url",
          llm.url,
          "--user-voice",
          "openai:gpt-4o-mini-tts",
          "--max-concurrency",
          "2",
          "--substitute-missing-noise",
          "--save-to",
          saveTo,
        ],
        {
          OPENAI_API_KEY: "sk-realtime-test-key-0001",
          OPENAI_BASE_URL: `${speech.url}/v1`,
          ...options.env,
        },
      );
      folders[complexity] = saveTo;
    }
  } finally {
    await Promise.all([llm.close(), speech.close(), realtime.close()]);
  }
  return { folders, tasks };
}

/** The passk CLI in this process (the binary's program); throws with its output when it fails. */
async function passkInProcess(args: string[], env: Record<string, string>): Promise<string> {
  const { code, stdout, stderr } = await runCliInProcess(args, env);
  if (code !== 0) throw new Error(`passk ${args.join(" ")} exited ${code}:\n${stdout}\n${stderr}`);
  return stdout;
}

const say = (
  side: "user" | "agent",
  n: number,
  text: string,
  extra: Partial<ScriptedTick> = {},
): ScriptedTick[] =>
  Array.from({ length: n }, (_, i) => ({
    user: side === "user" ? (i === 0 ? text : "") : null,
    agent: side === "agent" ? (i === 0 ? text : "") : null,
    ...extra,
  }));

/**
 * A hand-built call full of turn-taking: the agent answers 2.4 s late, talks through the caller's
 * interruption at ticks 22–25 (a failed yield) and a backchannel at 28, looks a reservation up at 18
 * (answered at 19), answers 0.4 s after the caller's next turn and starts over the caller at 53.
 */
export function turnTakingScript(): ScriptedTick[] {
  const ticks: ScriptedTick[] = [
    ...say("user", 5, "I need to change my flight."), // 0–4
    ...quiet(12), // 5–16: the agent answers 2.4 s after
    ...say("agent", 19, "Sure, let me look that up for you and see what we can do."), // 17–35
    ...quiet(3), // 36–38
    ...say("user", 3, "Okay thanks."), // 39–41
    ...quiet(2), // 42–43
    ...say("agent", 3, "You're welcome."), // 44–46
    ...quiet(3), // 47–49
    ...say("user", 5, "One more thing."), // 50–54
    ...quiet(2),
  ];
  // The caller breaks in at 22–25 (the agent talks on), says "mm-hm" at 28; a lookup at 18, answered at 19;
  // the agent starts at 53 while the caller still talks.
  for (let t = 22; t <= 25; t++) ticks[t] = { ...ticks[t]!, user: t === 22 ? "Wait, wait." : "" };
  ticks[28] = { ...ticks[28]!, user: "mm-hm", backchannel: true };
  ticks[18] = {
    ...ticks[18]!,
    toolCall: { id: "c1", name: "get_reservation_details", arguments: { reservation_id: "EHGLP3" } },
  };
  ticks[19] = { ...ticks[19]!, toolResult: { id: "c1", content: "{}" } };
  for (let t = 53; t <= 56; t++) ticks[t] = { ...ticks[t]!, agent: t === 53 ? "Of course." : "" };
  return ticks;
}

/** A one-call voice run of {@link turnTakingScript} (with its recording) at `folder`; its call's id. */
export function writeTurnTakingRun(folder: string): string {
  const call = scriptedCall(turnTakingScript());
  const writer = VoiceResultsWriter.create(folder, { info: syntheticInfo(), tasks: [] });
  writer.append(simulationRecord("turn-taking-0", "0", call.ticks, 0), { wire: call.wire });
  return "turn-taking-0";
}
