import path from "node:path";
import { defineConfig } from "vitest/config";

// The reference material beside the checkout (as CI has it): its upstream source files are where the
// τ² protocol reads the reference's prompt and tool texts, as `passk data pull` would have put them.
const tau2 = path.resolve(
  process.env.PASSK_TAU2_DIR ?? path.join(import.meta.dirname, "..", "shared", "tau2"),
);

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["test/helpers/global-setup.ts"],
    env: { PASSK_TAU2_UPSTREAM: process.env.PASSK_TAU2_UPSTREAM ?? path.join(tau2, "upstream") },
  },
});
