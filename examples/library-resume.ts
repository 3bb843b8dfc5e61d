// Stop a run and continue it from TypeScript: `npx tsx examples/library-resume.ts`. The run stops after
// its first conversation (as Ctrl-C would); `resumeRun` continues it, running only what is missing.
import { resumeRun, startRun, type Agent } from "passk";

const refuser: Agent = {
  name: "refuser",
  start: () => ({
    respond: async () => ({ role: "assistant", content: "Is there anything else I can help you with?" }),
  }),
};

const store = process.env.PASSK_STORE ?? ".passk/example-runs.db";
const spec = {
  domains: ["airline"],
  numTasks: 5,
  numTrials: 2,
  maxConcurrency: 1,
  user: { model: "scripted:gold" },
  store,
};
const stop = new AbortController();
const first = await startRun(spec, {
  agent: refuser,
  signal: stop.signal,
  onEvent: (event) => (event.type === "job-end" ? stop.abort() : undefined),
});
console.log(`run ${first.run.id}: ${first.run.status} with ${first.simulations.length} conversations`);
// Your own agent is given again (a run of model specs needs nothing but its id).
const { run, simulations, metrics } = await resumeRun(first.run.id, { agent: refuser, storeFile: store });
console.log(`run ${run.id}: ${run.status} with ${simulations.length} conversations`);
for (const [k, value] of Object.entries(metrics.pass_hat_ks)) console.log(`pass^${k} = ${value.toFixed(3)}`);
