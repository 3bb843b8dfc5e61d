import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { redactUrl } from "../llm/redact.js";
import { Store } from "../store/store.js";
import { continuedConfig, resolveSaveTo, storedRun } from "./resume.js";
import { identityDifferences, RunConfigSchema, type RunConfig } from "./run-spec.js";

// Which run a run continues, through the library (what `passk run --resume` and `--save-to` call).

const config = (overrides: Partial<RunConfig> = {}): RunConfig =>
  RunConfigSchema.parse({
    kind: "passk-run",
    version: 2,
    domains: ["airline"],
    dataDir: "/data",
    split: "base",
    numTasks: 2,
    protocol: "tau2",
    agent: { model: "openai:gpt-4.1" },
    user: { model: "openai:gpt-4.1" },
    scriptedDemo: false,
    ...overrides,
  });

/** A configuration row as `passk run` stored it before the typed spec: its flags as strings. */
const V1_ROW = {
  kind: "passk-run",
  version: 1,
  domains: ["airline", "retail"],
  data: "/data",
  selection: { split: "base", task_ids: ["1", "7"], num_tasks: null },
  num_trials: 4,
  seed: 42,
  max_steps: 100,
  max_errors: 5,
  solo: false,
  protocol: "tau2",
  retrieval_config: null,
  perturbations: ["tool-faults@1:rate=0.2"],
  perturbation_modules: ["/team/perturbations.ts"],
  models: {
    agentLlm: "openai-compatible:agent",
    agentLlmArgs: '{"temperature": 0.5, "max_tokens": 512}',
    agentLlmBaseUrl: "https://llm.example/v1",
    userLlm: "openai:gpt-4.1",
    userLlmArgs: '{"temperature": 0}',
    judgeLlm: "openai:gpt-4.1-mini",
    agentPromptTemplate: "/prompts.json",
    toolSpec: "/tools.json",
    prices: "/prices.json",
    cache: true,
    promptCache: false,
    timeout: "600",
    maxRetries: "3",
    maxAgentMessageBytes: "4096",
  },
  save_to: "/out/results.json",
  max_concurrency: 8,
  max_cost: 2.5,
  max_sim_seconds: 900,
  checkpoint_turns: true,
  adaptive: { target_ci: 0.04, max_trials: 16 },
  limits: { window_seconds: 60, rules: [{ target: "openai", requests_per_minute: 50 }] },
  scripted_demo: false,
  runner: { pid: 1234, host: "box", started_at: "2026-11-01T10:00:00.000Z" },
};

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
    expect(storedRun(store, run.id).config.agent.model).toBe("openai:gpt-4.1");
  });

  it("reads a configuration stored as flag strings (version 1) as the typed spec, every setting kept", () => {
    const run = store.createRun({ config: V1_ROW });
    expect(storedRun(store, run.id).config).toEqual({
      kind: "passk-run",
      version: 2,
      domains: ["airline", "retail"],
      dataDir: "/data",
      split: "base",
      taskIds: ["1", "7"],
      numTrials: 4,
      seed: 42,
      maxSteps: 100,
      maxErrors: 5,
      solo: false,
      protocol: "tau2",
      perturbations: ["tool-faults@1:rate=0.2"],
      perturbationModules: ["/team/perturbations.ts"],
      agent: {
        model: "openai-compatible:agent",
        baseUrl: "https://llm.example/v1",
        args: { temperature: 0.5, max_tokens: 512 },
      },
      user: { model: "openai:gpt-4.1", args: { temperature: 0 } },
      judge: { model: "openai:gpt-4.1-mini" },
      agentPromptTemplate: "/prompts.json",
      toolSpec: "/tools.json",
      prices: "/prices.json",
      cache: true,
      promptCache: false,
      timeoutSeconds: 600,
      maxRetries: 3,
      maxAgentMessageBytes: 4096,
      saveTo: "/out/results.json",
      maxConcurrency: 8,
      maxAttempts: 4,
      maxCost: 2.5,
      maxSimSeconds: 900,
      checkpointTurns: true,
      adaptive: { targetCi: 0.04, maxTrials: 16 },
      limits: { window_seconds: 60, rules: [{ target: "openai", requests_per_minute: 50 }] },
      scriptedDemo: false,
      runner: { pid: 1234, host: "box", started_at: "2026-11-01T10:00:00.000Z" },
    });
  });

  it("a resume of a migrated run refuses changed identity settings and takes operational ones", () => {
    const run = store.createRun({ config: V1_ROW });
    const stored = storedRun(store, run.id);
    expect(() => continuedConfig(stored, { numTrials: 5 })).toThrow(/--num-trials: 4 → 5/);
    expect(() => continuedConfig(stored, { agent: { args: { temperature: 0 } } })).toThrow(
      /--agent-llm-args: \{"temperature":0.5,"max_tokens":512\} → \{"temperature":0\}/,
    );
    expect(() => continuedConfig(stored, { perturbations: [] })).toThrow(/--perturb/);
    // The same settings typed again, and operational ones changed, continue it.
    const resumed = continuedConfig(stored, {
      numTrials: 4,
      agent: { model: "openai-compatible:agent", baseUrl: "https://other.example/v1" },
      timeoutSeconds: 30,
      maxCost: 10,
    });
    expect(resumed).toMatchObject({
      agent: { baseUrl: "https://other.example/v1", args: { temperature: 0.5, max_tokens: 512 } },
      timeoutSeconds: 30,
      maxCost: 10,
    });
    expect(identityDifferences(stored.config, resumed)).toEqual([]);
  });

  it("operational settings given again replace the stored ones; a redacted base URL must be given again", () => {
    const run = store.createRun({
      config: config({
        agent: { model: "openai:gpt-4.1", baseUrl: redactUrl("https://key@llm.example/v1") },
      }),
    });
    const stored = storedRun(store, run.id);
    expect(() => continuedConfig(stored, {})).toThrow(/--agent-llm-base-url again/);
    const resumed = continuedConfig(stored, {
      agent: { baseUrl: "https://key@llm.example/v1" },
      timeoutSeconds: 600,
      saveTo: "/out/results.json",
    });
    expect(resumed.agent).toEqual({ model: "openai:gpt-4.1", baseUrl: "https://key@llm.example/v1" });
    expect(resumed.timeoutSeconds).toBe(600);
    expect(resumed.saveTo).toBe("/out/results.json");
  });

  it("--save-to: the stored run writing the same file is continued; one configured differently is refused", () => {
    const saveTo = path.join(dir, "results.json");
    expect(resolveSaveTo(store, config({ saveTo })).existing).toBeUndefined();
    const run = store.createRun({ config: config({ saveTo }) });
    expect(resolveSaveTo(store, config({ saveTo })).existing?.run.id).toBe(run.id);
    expect(() => resolveSaveTo(store, config({ saveTo, numTrials: 4 }))).toThrow(
      new RegExp(`belongs to run ${run.id}[\\s\\S]*--num-trials: 1 → 4`),
    );
  });
});
