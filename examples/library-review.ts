// After a run, from TypeScript: who caused each failure, and does the results file grade as recorded?
// `npx tsx examples/library-review.ts` — a forgetful agent on 10 airline tasks, the scripted customer.
import { readResultsFile, rescore, reviewRun, startRun, Store, type Agent } from "passk";

// Stands in for your agent: it says it is done without doing anything.
const forgetful: Agent = {
  name: "forgetful",
  start: () => ({ respond: async () => ({ role: "assistant", content: "Done! Anything else?" }) }),
};
const store = process.env.PASSK_STORE ?? ".passk/example-runs.db";
const saveTo = process.env.PASSK_SAVE_TO ?? ".passk/example-results.json";
const spec = { domains: ["airline"], numTasks: 10, user: { model: "scripted:gold" }, store, saveTo };
const { run } = await startRun(spec, { agent: forgetful });

const opened = Store.open(store, { create: false });
const { reviews } = await reviewRun(opened, run.id); // deterministic checks only: no judge model given
opened.close();
for (const r of reviews)
  console.log(`task ${r.task_id}: ${r.review.culprit} at turn ${r.review.turn} — ${r.review.reason}`);

const scored = await rescore(readResultsFile(saveTo)); // against the official tasks of the data directory
console.log(
  `${scored.rows.filter((row) => !scored.differs(row)).length} of ${scored.rows.length} reproduce their reward`,
);
