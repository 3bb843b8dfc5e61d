/**
 * `npm run bench`: every benchmark, each in its own process pinned to one core when `taskset` exists.
 * Prints one JSON line per figure; see each script for its setup.
 */
import { execFileSync, spawnSync } from "node:child_process";
import path from "node:path";

const here = import.meta.dirname;
const hasTaskset = spawnSync("taskset", ["--version"]).status === 0;

function run(script: string, args: string[] = [], nodeFlags: string[] = [], pin = true): void {
  const command = [process.execPath, ...nodeFlags, "--import", "tsx", path.join(here, script), ...args];
  const [file, ...rest] = pin && hasTaskset ? ["taskset", "-c", "0", ...command] : command;
  process.stdout.write(execFileSync(file!, rest, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }));
}

console.log(`# passk benchmarks — node ${process.version}, ${hasTaskset ? "pinned to core 0" : "unpinned"}`);
run("replay-throughput.ts");
run("llm-call-cpu.ts");
run("live-worlds.ts", ["1000"], ["--expose-gc"]);
run("live-worlds.ts", ["10000"], ["--expose-gc"]);
// Conversations over HTTP measure the event loop beside a mock model in another process; pinned, the
// mock (a child, so it inherits the affinity) would share the harness's core, so they run unpinned.
run("mock-llm-load.ts", ["1000", "500", "14"], [], false);
run("conversation-throughput.ts", ["100", "500"], [], false);
run("conversation-throughput.ts", ["1000", "500"], [], false);
// passk's CPU per model call against a bare node:http client's, same mock, same calls, phases alternating.
run("call-cpu-ratio.ts", ["100", "200", "300", "4"], [], false);
// Where that CPU goes: the same conversations in process, without the HTTP call, then without passk's layers
// and without the AI SDK.
run("call-cpu-layers.ts", ["100", "200", "300", "3"], [], false);
// `passk run` at scale: 1,000 conversations at concurrency 200 through the store and job queue.
run("run-scale.ts", ["1000", "200", "500", "3"], [], false);
// Distributed runs: 1, 2 and 4 `passk worker` processes over Redis, Redis commands, queue overhead.
run("distributed-run.ts", ["40", "8", "200", "3"], [], false);
// A remote agent's tool call over passk's MCP endpoint against the same call in process.
run("mcp-hop.ts", ["500"]);
// The float-preserving JSON reader on 4 MB of digits (hostile MCP requests and uploads): linear time.
run("json-float-parser.ts");
// A run's metrics as trials grow (pass^k up to k = 32 with intervals): linear in the trials.
run("metrics-trials.ts");
// τ-voice interaction metrics on the reference's golden set, per simulation, against the reference's.
run("interaction-metrics.ts");
// The caller's line: a 10-minute call through `regular` voice effects, ms per call and ticks per second.
run("voice-effects.ts");
// A whole voice call: 10 minutes through the tick loop, the voice customer and the caller's line.
run("voice-call.ts");
// Adaptive trials against the fixed design, on the seeded flaky agent with a known truth.
run("adaptive-trials.ts", ["0.05", "400"]);
run("prompt-caching.ts");
// `--otel`: a conversation's cost with tracing on (spans batched and POSTed to a local receiver) and off.
run("otel-overhead.ts");
// The model call behind each turn: what recording it costs a conversation, and the store bytes it adds.
run("model-call-record.ts");
// What --perturb costs the harness per conversation and per tool call (no model).
run("perturbations.ts");
// banking_knowledge: replay + evaluation, BM25 queries, live worlds (each its own process).
// The agent gym: gold episodes per second in process and over HTTP (`passk serve --gym`, another process).
run("gym.ts", ["airline", "3"], [], false);
run("gym.ts", ["retail", "3"], [], false);
run("banking.ts", ["replay"]);
run("banking.ts", ["bm25"]);
// The shell tool: a sandbox (srt over bubblewrap) per command, unpinned (srt, bwrap are other processes).
run("banking.ts", ["shell", "30"], [], false);
run("banking.ts", ["worlds", "1000"], ["--expose-gc"]);
// The web app's first load in Chromium (nothing cached), its JavaScript and first API answers, as sent.
run("web-load.ts", [], [], false);
