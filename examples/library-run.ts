// Start a run from TypeScript and read pass^k: `npx tsx examples/library-run.ts`. Your own agent on
// airline's 50 base tasks, 2 trials each, against passk's scripted customer (no API key needed).
import { startRun, type Agent } from "passk";

// Stands in for your agent: it refuses every request. It still passes the tasks whose goal is to
// change nothing: the floor any real agent must beat. (The scripted customer hangs up when asked
// whether there is anything else.)
const refuser: Agent = {
  name: "refuser",
  start: () => ({
    respond: async () => ({
      role: "assistant",
      content: "Is there anything else I can help you with? What you asked, I cannot do.",
    }),
  }),
};

const store = process.env.PASSK_STORE ?? ".passk/example-runs.db";
const spec = { domains: ["airline"], numTrials: 2, user: { model: "scripted:gold" }, store };
const { run, metrics } = await startRun(spec, { agent: refuser });
const all = metrics.total_simulations + metrics.infra_error_count;
console.log(`run ${run.id}: graded ${metrics.total_simulations} of ${all} conversations`);
for (const [k, value] of Object.entries(metrics.pass_hat_ks)) console.log(`pass^${k} = ${value.toFixed(3)}`);
