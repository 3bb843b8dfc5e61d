import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { redactUrl } from "../llm/redact.js";
import { Store } from "../store/store.js";
import { continuedConfig, resolveSaveTo, storedRun } from "./resume.js";
import type { RunConfig } from "./run-config.js";

// Which run a run continues, through the library (what `passk run --resume` and `--save-to` call).

const config = (overrides: Partial<RunConfig> = {}): RunConfig => ({
  kind: "passk-run",
  version: 1,
  domains: ["airline"],
  data: "/data",
  selection: { split: "base", task_ids: null, num_tasks: 2 },
  num_trials: 1,
  seed: 300,
  max_steps: 200,
  max_errors: 10,
  solo: false,
  protocol: "tau2",
  models: { agentLlm: "openai:gpt-4.1", userLlm: "openai:gpt-4.1", timeout: "120" },
  save_to: null,
  scripted_demo: false,
  ...overrides,
});

describe("runner/resume", () => {
  let dir: string;
  let store: Store;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "passk-resume-"));
    store = Store.open(path.join(dir, "runs.db"), { create: true });
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("continues only runs passk run started, with their stored configuration", () => {
    const imported = store.createRun({ config: { imported_from: "results.json" } });
    expect(() => storedRun(store, imported.id)).toThrow(/imported from results\.json.*only such runs/);
    const run = store.createRun({ config: config() });
    expect(storedRun(store, run.id).config.models.agentLlm).toBe("openai:gpt-4.1");
  });

  it("operational settings given again replace the stored ones; a redacted base URL must be given again", () => {
    const run = store.createRun({
      config: config({
        models: { ...config().models, agentLlmBaseUrl: redactUrl("https://key@llm.example/v1") },
      }),
    });
    const stored = storedRun(store, run.id);
    expect(() => continuedConfig(stored, {})).toThrow(/--agent-llm-base-url again/);
    const resumed = continuedConfig(stored, {
      models: { agentLlmBaseUrl: "https://key@llm.example/v1", timeout: "600" },
      saveTo: "/out/results.json",
    });
    expect(resumed.models).toMatchObject({ agentLlmBaseUrl: "https://key@llm.example/v1", timeout: "600" });
    expect(resumed.save_to).toBe("/out/results.json");
  });

  it("--save-to: the stored run writing the same file is continued; one configured differently is refused", () => {
    const saveTo = path.join(dir, "results.json");
    expect(resolveSaveTo(store, config({ save_to: saveTo })).existing).toBeUndefined();
    const run = store.createRun({ config: config({ save_to: saveTo }) });
    expect(resolveSaveTo(store, config({ save_to: saveTo })).existing?.run.id).toBe(run.id);
    expect(() => resolveSaveTo(store, config({ save_to: saveTo, num_trials: 4 }))).toThrow(
      new RegExp(`belongs to run ${run.id}[\\s\\S]*--num-trials: 1 → 4`),
    );
  });
});
