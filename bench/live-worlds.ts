/**
 * Peak RSS holding N live airline worlds, each initialised for a task and changed by that task's gold
 * actions (so no two worlds are the pristine one). Worlds share the parsed base DB copy-on-write.
 *
 * Usage: node --expose-gc --import tsx bench/live-worlds.ts N   (run by `npm run bench`)
 */
import { builtinDomains } from "../src/domains/registry.js";
import { applyInitialState } from "../src/env/set-state.js";
import type { World } from "../src/env/world.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import { REFERENCE } from "./reference-figures.js";

const count = Number(process.argv[2] ?? 1000);
const gc = (globalThis as { gc?: () => void }).gc;
const rssMb = () => process.memoryUsage().rss / 2 ** 20;

const data = new DomainData(builtinDomains.get("airline")!, tau2DataDir());
const tasks = data.tasks.filter((t) => (t.evaluation_criteria?.actions?.length ?? 0) > 0);
gc?.();
const baseline = rssMb();
const worlds: World[] = [];
const start = performance.now();
for (let i = 0; i < count; i++) {
  const task = tasks[i % tasks.length]!;
  const world = data.newWorld();
  applyInitialState(world, task.initial_state);
  for (const action of task.evaluation_criteria!.actions!)
    world.callTool({ name: action.name, arguments: action.arguments, requestor: action.requestor });
  worlds.push(world);
}
const buildMs = performance.now() - start;
gc?.();
const live = rssMb();
// The process's highest RSS, building included (kernel's ru_maxrss, in KB on Linux).
const peak = Math.max(live, process.resourceUsage().maxRSS / 1024);
const perWorld = (live - baseline) / count;
console.log(
  JSON.stringify({
    bench: "live-worlds",
    domain: "airline",
    worlds: worlds.length,
    rss_after_load_mb: Math.round(baseline),
    rss_with_worlds_mb: Math.round(live),
    peak_rss_mb: Math.round(peak),
    mb_per_world: Number(perWorld.toFixed(4)),
    build_ms: Math.round(buildMs),
    reference_mb_per_world: REFERENCE.rssPerWorldMb.airline,
    leaner_than_reference: Number((REFERENCE.rssPerWorldMb.airline / Math.max(perWorld, 1e-6)).toFixed(0)),
    under_2gb: peak < 2048,
  }),
);
