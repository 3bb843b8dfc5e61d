import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSuccessful } from "../src/metrics/pass-hat-k.js";
import { voiceRunInteractionMetrics } from "../src/runner/voice-interaction-metrics.js";
import {
  VoiceCallDetailSchema,
  VoiceRunDetailSchema,
  VoiceRunListSchema,
} from "../src/server/voice-api-schemas.js";
import { simulationAudioDir } from "../src/voice/audio-artifacts.js";
import { makeVoiceRuns } from "./helpers/voice-run-dir.js";
import { startWebServer, type WebServer } from "./web/helpers/web-server.js";

// The explorer's voice-run API over real HTTP on 127.0.0.1, on voice runs made by the real pipeline
// (`passk run --voice` with the mock realtime agent), checked against the run's own files.

interface RawTick {
  agent_tool_calls: { id: string; name: string }[];
  agent_chunk: { contains_speech?: boolean } | null;
  user_chunk: { contains_speech?: boolean } | null;
}
interface RawSimulation {
  id: string;
  task_id: string;
  trial: number;
  reward_info: { reward: number } | null;
  ticks: RawTick[];
}

const work = mkdtempSync(path.join(tmpdir(), "passk-voice-explorer-api-"));
const runsDir = path.join(work, "runs");
let server: WebServer;

const rawSimulations = (folder: string): RawSimulation[] =>
  readdirSync(path.join(folder, "simulations"))
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(folder, "simulations", f), "utf8")) as RawSimulation);

const get = (url: string, headers: Record<string, string> = {}) => fetch(`${server.url}${url}`, { headers });
async function json(url: string): Promise<unknown> {
  const response = await get(url);
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json();
}

beforeAll(async () => {
  mkdirSync(runsDir);
  await makeVoiceRuns(runsDir, { tasks: 2, trials: 2, complexities: ["control", "regular"] });
  server = await startWebServer({ voiceRuns: [runsDir] });
}, 240_000);
afterAll(async () => {
  await server?.kill();
  rmSync(work, { recursive: true, force: true });
});

describe("GET /api/voice-runs", () => {
  it("lists each run of the folder with pass^k and the interaction panel of its files, with intervals", async () => {
    const list = VoiceRunListSchema.parse(await json("/api/voice-runs"));
    expect(list.runs.map((r) => r.id)).toEqual(["airline-control", "airline-regular"]);
    for (const run of list.runs) {
      const folder = path.join(runsDir, run.name);
      const simulations = rawSimulations(folder);
      expect(run.domain).toBe("airline");
      expect(run.speechComplexity).toBe(run.name.replace("airline-", ""));
      expect(run.simulations).toBe(simulations.length);
      // pass^1 is the share of successful calls when every task has all its trials.
      const successes = simulations.filter((s) => isSuccessful(s.reward_info?.reward)).length;
      expect(run.passHatK["1"]).toBeCloseTo(successes / simulations.length, 10);
      expect(Object.keys(run.passHatK)).toEqual(["1", "2"]);
      const band = run.passHatKIntervals["1"]!;
      expect(band.low).toBeLessThanOrEqual(run.passHatK["1"]!);
      expect(band.high).toBeGreaterThanOrEqual(run.passHatK["1"]!);
      // The panel's values are exactly `passk report`'s.
      const report = voiceRunInteractionMetrics(folder).interaction_metrics;
      for (const row of run.interaction!.rows) {
        expect(row.value, row.key).toBe(report[row.key as keyof typeof report]);
        if (row.value !== null && row.interval !== null) {
          expect(row.interval.low).toBeLessThanOrEqual(row.value + 1e-9);
          expect(row.interval.high).toBeGreaterThanOrEqual(row.value - 1e-9);
        }
      }
      const responses = run.interaction!.rows.find((r) => r.key === "response_rate")!;
      expect(responses.events).toBe(report.counts.response_total);
      expect(responses.events).toBeGreaterThan(0);
      expect(responses.interval).not.toBeNull();
    }
    expect(list.problems).toEqual([]);
  });

  it("one run lists its calls with their reward; one call has both sides' speech, its tool calls at their tick, and events", async () => {
    const folder = path.join(runsDir, "airline-regular");
    const detail = VoiceRunDetailSchema.parse(await json("/api/voice-runs/airline-regular"));
    const simulations = rawSimulations(folder);
    expect(detail.calls.map((c) => c.id).sort()).toEqual(simulations.map((s) => s.id).sort());
    for (const call of detail.calls) {
      const raw = simulations.find((s) => s.id === call.id)!;
      expect(call.reward).toBe(raw.reward_info!.reward);
      expect(call.taskId).toBe(raw.task_id);
      expect(call.audio).toBe(true);
      expect(call.durationSec).toBeCloseTo(raw.ticks.length * 0.2, 6);
      expect(call.explanation === null).toBe(call.reward === 1);
    }
    // A call whose agent looked something up (the mock agent plays each task's gold actions).
    const raw = simulations.find((s) => s.ticks.some((t) => t.agent_tool_calls.length > 0))!;
    expect(raw).toBeDefined();
    const view = VoiceCallDetailSchema.parse(
      await json(`/api/voice-runs/airline-regular/calls/${encodeURIComponent(raw.id)}`),
    );
    expect(new Set(view.segments.map((s) => s.side))).toEqual(new Set(["customer", "agent"]));
    for (const segment of view.segments) {
      const side = segment.side === "customer" ? "user_chunk" : "agent_chunk";
      for (let t = segment.startTick; t < segment.endTick; t++)
        expect(raw.ticks[t]![side]?.contains_speech, `tick ${t}`).not.toBe(false);
      expect(segment.start).toBeCloseTo(segment.startTick * 0.2, 6);
    }
    const recorded = raw.ticks.flatMap((tick, i) =>
      tick.agent_tool_calls.map((c) => ({ name: c.name, tick: i })),
    );
    expect(recorded.length).toBeGreaterThan(0);
    expect(view.toolCalls.map((c) => ({ name: c.name, tick: c.tick }))).toEqual(recorded);
    for (const call of view.toolCalls) {
      expect(call.time).toBeCloseTo(call.tick * 0.2, 6);
      expect(call.resultTick).not.toBeNull();
    }
    expect(view.events.some((e) => e.category === "response")).toBe(true);
    expect(view.audioUrl).toBe(`/api/voice-runs/airline-regular/calls/${raw.id}/audio`);
  });
});

describe("the recording", () => {
  const audioOf = async () => {
    const detail = VoiceRunDetailSchema.parse(await json("/api/voice-runs/airline-control"));
    const call = detail.calls[0]!;
    const file = path.join(
      simulationAudioDir(path.join(runsDir, "airline-control"), call.taskId, call.id),
      "both.wav",
    );
    return { url: `/api/voice-runs/airline-control/calls/${call.id}/audio`, bytes: readFileSync(file) };
  };

  it("is served whole as audio/wav, and in part for a Range request (206), as a media element asks", async () => {
    const { url, bytes } = await audioOf();
    const whole = await get(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("audio/wav");
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    expect(bytes.subarray(0, 4).toString()).toBe("RIFF");

    const part = await get(url, { Range: "bytes=100-1099" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-1099/${bytes.length}`);
    expect(part.headers.get("content-length")).toBe("1000");
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(100, 1100))).toBe(true);

    const open = await get(url, { Range: "bytes=44-" });
    expect(open.status).toBe(206);
    expect(Buffer.from(await open.arrayBuffer()).equals(bytes.subarray(44))).toBe(true);

    const tail = await get(url, { Range: "bytes=-10" });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 10))).toBe(true);

    const past = await get(url, { Range: `bytes=${bytes.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${bytes.length}`);
  });
});

describe("a hostile client", () => {
  it("cannot leave the given folders: `..`, encoded slashes and unknown ids get 400 or 404 with a sentence", async () => {
    const detail = VoiceRunDetailSchema.parse(await json("/api/voice-runs/airline-control"));
    const id = detail.calls[0]!.id;
    const attempts = [
      "/api/voice-runs/..",
      "/api/voice-runs/%2E%2E",
      "/api/voice-runs/..%2F..%2Fetc",
      "/api/voice-runs/%2e%2e%2f%2e%2e%2fresults.json",
      "/api/voice-runs/airline-control%2F..%2F..",
      `/api/voice-runs/airline-control/calls/..%2F${id}`,
      `/api/voice-runs/airline-control/calls/..%2F..%2Fresults.json/audio`,
      `/api/voice-runs/airline-control/calls/%2Fetc%2Fpasswd/audio`,
      `/api/voice-runs/airline-control/calls/${id}%2F..%2F..%2F..%2Fresults.json/audio`,
      "/api/voice-runs/airline-control/calls/not-a-call/audio",
      "/api/voice-runs/no-such-run",
      "/api/voice-runs/runs/calls/x",
    ];
    for (const attempt of attempts) {
      const response = await get(attempt);
      expect([400, 404], attempt).toContain(response.status);
      const body = (await response.json()) as { message: string };
      expect(body.message, attempt).toMatch(/\w+ \w+ \w+/);
      expect(body.message, attempt).not.toContain(work);
    }
  });

  it("a recording that links outside its run, or a task id with `../` in a run's files, is not served", async () => {
    const hostileRoot = path.join(work, "hostile");
    const run = path.join(hostileRoot, "linked");
    cpSync(path.join(runsDir, "airline-control"), run, { recursive: true });
    const secret = path.join(work, "secret.wav");
    writeFileSync(secret, "RIFF-not-yours");
    const [first, second] = rawSimulations(run);
    const wav = path.join(simulationAudioDir(run, first!.task_id, first!.id), "both.wav");
    rmSync(wav);
    symlinkSync(secret, wav);
    // A recorded task id that climbs out of artifacts/ to a file beside the run.
    const file = path.join(run, "simulations", `${second!.id}.json`);
    const escaped = path.join(hostileRoot, `sim_${second!.id}`, "audio");
    mkdirSync(escaped, { recursive: true });
    writeFileSync(path.join(escaped, "both.wav"), "RIFF-outside");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace(`"task_id": "${second!.task_id}"`, `"task_id": "x/../../../.."`),
    );
    const hostile = await startWebServer({ voiceRuns: [hostileRoot] });
    try {
      for (const simulation of [first!, second!]) {
        const response = await fetch(`${hostile.url}/api/voice-runs/linked/calls/${simulation.id}/audio`);
        expect(response.status).toBe(404);
        expect(((await response.json()) as { message: string }).message).toContain("has no recording");
      }
      const listed = VoiceRunDetailSchema.parse(
        await (await fetch(`${hostile.url}/api/voice-runs/linked`)).json(),
      );
      expect(
        listed.calls
          .filter((c) => !c.audio)
          .map((c) => c.id)
          .sort(),
      ).toEqual([first!.id, second!.id].sort());
    } finally {
      await hostile.kill();
    }
  });

  it("a server given no voice runs lists none", async () => {
    const bare = await startWebServer();
    try {
      const list = VoiceRunListSchema.parse(await (await fetch(`${bare.url}/api/voice-runs`)).json());
      expect(list.runs).toEqual([]);
    } finally {
      await bare.kill();
    }
  });
});
