import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

// Files whose timing is the test — calls played in real time in Chromium, the live progress page
// losing its server, workers killed and restarted, a run killed mid-flight — run one at a time after
// the rest, with the machine to themselves: their waits are sized for a loaded machine, not for a
// second file competing for the same two cores.
const ALONE = [
  "test/web/voice-playground.test.ts",
  "test/web/voice-playground-live.test.ts",
  "test/web/keyless-demo.test.ts",
  "test/web/live-progress.test.ts",
  "test/distributed-run.test.ts",
  "test/hostile/distributed-jobs.test.ts",
  "test/banking-alltools-run.test.ts",
  "test/run-control.test.ts",
];

// The tests read the official data and the upstream source files where `passk data pull` put them
// (README command 1), or where PASSK_DATA_DIR / PASSK_TAU2_UPSTREAM point; what they compare with is in
// test/fixtures/tau2/ (see src/testing/tau2-fixtures.ts).
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["test/helpers/global-setup.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "parallel",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...ALONE],
          // One process per worker for all its files (not one per file): each file no longer imports
          // passk anew, which was a third of the suite's time. Files restore what they change of the
          // process (env, cwd, listeners).
          isolate: false,
          // Two files at a time even on two cores (vitest's default would be one): most files wait on
          // child processes and sockets more than they compute.
          maxWorkers: Math.max(2, availableParallelism() - 1),
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: "alone", include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
