/**
 * banking_knowledge figures: gold replay + evaluation per task under no_knowledge (the config of the
 * reference's anchor, ../shared/tau2/BANKING.md: 608 ms/task wall on a loaded machine, ~200–250 ms of
 * CPU — an upper bound) and under bm25; BM25 query latency over the 698 documents (index built once per
 * process, as passk does; the reference rebuilds it per environment); peak RSS per live banking world.
 *
 * `shell`: the shell tool (terminal_use, alltools) — sandboxes created per second (KB export + srt
 * settings), and the latency of a call (one srt sandbox per command), beside a BM25 query in process.
 *
 * Usage: node --expose-gc --import tsx bench/banking.ts replay|bm25|worlds|shell [worlds=1000|calls=30]
 * (each part in its own process, so that RSS measures only the worlds; run by `npm run bench`)
 */
import path from "node:path";
import { builtinDomains } from "../src/domains/registry.js";
import { applyInitialState } from "../src/env/set-state.js";
import type { World } from "../src/env/world.js";
import { replayGoldActions } from "../src/evaluation/gold-replay.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { bm25Index, bm25Search } from "../src/knowledge/bm25.js";
import { loadKnowledgeBase } from "../src/knowledge/knowledge-base.js";
import { ShellSandbox } from "../src/knowledge/shell-sandbox.js";
import { readJsonl, tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { REFERENCE } from "./reference-figures.js";

const part = process.argv[2] ?? "replay";
const worldsWanted = Number(process.argv[3] ?? 1000);
const domain = builtinDomains.get("banking_knowledge")!;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const config of part === "replay" ? ["no_knowledge", "bm25"] : []) {
  const loadStart = performance.now();
  const data = new DomainData(domain, tau2DataDir(), { config });
  const tasks = data.tasks;
  const newWorld = (o?: Parameters<typeof data.newWorld>[0]) => data.newWorld(o);
  const first = performance.now();
  for (const task of tasks) replayGoldActions("banking_knowledge", task, newWorld);
  const firstMs = performance.now() - first;
  const loadMs = performance.now() - loadStart - firstMs;
  const passes: number[] = [];
  for (let pass = 0; pass < 5; pass++) {
    const start = performance.now();
    for (const task of tasks) replayGoldActions("banking_knowledge", task, newWorld);
    passes.push(performance.now() - start);
  }
  const msPerTask = median(passes) / tasks.length;
  const reference = REFERENCE.msPerTask.banking_knowledge!;
  console.log(
    JSON.stringify({
      bench: "replay+evaluate",
      domain: "banking_knowledge",
      retrieval_config: config,
      tasks: tasks.length,
      load_ms: Math.round(loadMs),
      ms_per_task: Number(msPerTask.toFixed(3)),
      first_pass_ms_per_task: Number((firstMs / tasks.length).toFixed(3)),
      reference_ms_per_task_no_knowledge: reference,
      speedup_vs_reference: Number((reference / msPerTask).toFixed(1)),
    }),
  );
}

// BM25 over the knowledge base: the index once, then the fixture's queries.
if (part === "bm25") bm25Figures();
function bm25Figures() {
  const kb = loadKnowledgeBase(path.join(tau2DataDir(), "banking_knowledge", "documents"));
  const indexStart = performance.now();
  bm25Index(kb);
  const indexMs = performance.now() - indexStart;
  const queries = readJsonl<{ retriever: string; query: string }>(
    "fixtures/retrieval/banking_knowledge.jsonl",
  )
    .filter((line) => line.retriever === "bm25")
    .map((line) => line.query);
  for (const q of queries) bm25Search(kb, q, 10); // warm
  const latencies: number[] = [];
  for (let round = 0; round < 20; round++)
    for (const q of queries) {
      const start = performance.now();
      bm25Search(kb, q, 10);
      latencies.push(performance.now() - start);
    }
  console.log(
    JSON.stringify({
      bench: "bm25",
      documents: kb.documents.length,
      index_build_ms: Number(indexMs.toFixed(1)),
      queries: latencies.length,
      median_query_ms: Number(median(latencies).toFixed(3)),
      p99_query_ms: Number(
        [...latencies].sort((a, b) => a - b)[Math.floor(latencies.length * 0.99)]!.toFixed(3),
      ),
    }),
  );
}

// The shell tool: sandboxes per second, then calls in one sandbox, beside the same question to BM25.
if (part === "shell") await shellFigures(Number(process.argv[3] ?? 30));
async function shellFigures(calls: number) {
  const kb = loadKnowledgeBase(path.join(tau2DataDir(), "banking_knowledge", "documents"));
  const created: ShellSandbox[] = [];
  const createStart = performance.now();
  for (let i = 0; i < 20; i++) created.push(new ShellSandbox(kb, { allowWrites: false }));
  const createSeconds = (performance.now() - createStart) / 1000;
  const sandbox = created[0]!;
  for (const other of created.slice(1)) other.close();
  const commands = ["grep -ril 'overdraft' . | sort | head", "cat INDEX.md | head -30", "ls | wc -l"];
  await sandbox.run("ls | wc -l"); // warm
  const latencies: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await sandbox.run(commands[i % commands.length]!);
    latencies.push(performance.now() - start);
  }
  sandbox.close();
  bm25Search(kb, "overdraft", 10);
  const bm25: number[] = [];
  for (let i = 0; i < 200; i++) {
    const start = performance.now();
    bm25Search(kb, "overdraft fee", 10);
    bm25.push(performance.now() - start);
  }
  const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.99)]!;
  console.log(
    JSON.stringify({
      bench: "banking_shell",
      sandboxes_per_second: Number((created.length / createSeconds).toFixed(1)),
      calls: latencies.length,
      median_call_ms: Number(median(latencies).toFixed(1)),
      p99_call_ms: Number(p99(latencies).toFixed(1)),
      bm25_median_query_ms: Number(median(bm25).toFixed(3)),
      bm25_p99_query_ms: Number(p99(bm25).toFixed(3)),
    }),
  );
}

// Live worlds: each initialised for a task and changed by its gold actions.
if (part === "worlds") liveWorlds();
function liveWorlds() {
  const gc = (globalThis as { gc?: () => void }).gc;
  const rssMb = () => process.memoryUsage().rss / 2 ** 20;
  const data = new DomainData(domain, tau2DataDir(), { config: "bm25" });
  const tasks = data.tasks.filter((t) => (t.evaluation_criteria?.actions?.length ?? 0) > 0);
  // One world first, so that what every world shares (the parsed DB, the KB, the index) is loaded.
  data.newWorld({ task: tasks[0]! });
  gc?.();
  const baseline = rssMb();
  const worlds: World[] = [];
  for (let i = 0; i < worldsWanted; i++) {
    const task = tasks[i % tasks.length]!;
    const world = data.newWorld({ task });
    applyInitialState(world, task.initial_state);
    for (const action of task.evaluation_criteria!.actions!)
      world.callTool({ name: action.name, arguments: action.arguments, requestor: action.requestor });
    worlds.push(world);
  }
  gc?.();
  const perWorld = (rssMb() - baseline) / worlds.length;
  console.log(
    JSON.stringify({
      bench: "live-worlds",
      domain: "banking_knowledge",
      worlds: worlds.length,
      rss_growth_mb: Math.round(rssMb() - baseline),
      mb_per_world: Number(perWorld.toFixed(4)),
    }),
  );
}
