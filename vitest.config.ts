import { defineConfig } from "vitest/config";

// The tests read the official data and the upstream source files where `passk data pull` put them
// (README command 1), or where PASSK_DATA_DIR / PASSK_TAU2_UPSTREAM point; what they compare with is in
// test/fixtures/tau2/ (see src/testing/tau2-fixtures.ts).
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["test/helpers/global-setup.ts"],
  },
});
