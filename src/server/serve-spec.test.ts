import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  isUserSimulatorRequest,
  mockReply,
  startMockLlmServer,
  type MockLlmServer,
} from "../testing/index.js";
import { tau2DataDir } from "../testing/tau2-fixtures.js";
import { createServer } from "./create-server.js";
import { assembleServer, type ServeSpec } from "./serve-spec.js";

// A library user starts the playground server from code: a serve spec → assembleServer → createServer.
// The offered models are built once with their own base URLs and call args, as `passk serve` builds them.

const env = { ...process.env, OPENAI_COMPATIBLE_API_KEY: "sk-test-serve-spec" };
let model: MockLlmServer;
let folder: string;

beforeAll(async () => {
  model = await startMockLlmServer({
    script: (request) => {
      if (!isUserSimulatorRequest(request)) return mockReply.text("Done. Anything else?");
      const said = (request.body as { messages: Array<{ role: string }> }).messages;
      return mockReply.text(said.filter((m) => m.role === "user").length > 1 ? "Bye. ###STOP###" : "Hello.");
    },
  });
  folder = mkdtempSync(path.join(tmpdir(), "passk-serve-spec-"));
});
afterAll(() => model?.close());

const spec = (overrides: Partial<ServeSpec> = {}): ServeSpec => ({
  dataDir: tau2DataDir(),
  store: path.join(folder, "store.db"),
  protocol: "passk",
  agents: [
    { model: "scripted:gold" },
    { model: "openai-compatible:mock-agent", baseUrl: model.baseUrl, args: { temperature: 0.3 } },
  ],
  users: [{ model: "openai-compatible:mock-user", baseUrl: model.baseUrl, args: { temperature: 0.9 } }],
  ...overrides,
});

describe("assembleServer", () => {
  it("offers the spec's models, and a conversation's calls carry each model's own args", async () => {
    const assembled = assembleServer(spec(), { env });
    try {
      const app = createServer(assembled.deps);
      const info = (await (await app.request("/api/info")).json()) as { agents: string[]; users: string[] };
      expect(info.agents).toEqual(["scripted:gold", "openai-compatible:mock-agent"]);
      expect(info.users).toEqual(["openai-compatible:mock-user"]);
      const started = await app.request("/api/conversations", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          domain: "mock",
          taskId: "create_task_1",
          mode: "simulate",
          agent: "openai-compatible:mock-agent",
        }),
      });
      expect(started.status).toBe(201);
      await expect
        .poll(() => model.requests.filter(isUserSimulatorRequest).length, { timeout: 30_000 })
        .toBeGreaterThan(1);
      await expect
        .poll(() => model.requests.filter((r) => !isUserSimulatorRequest(r)).length, { timeout: 30_000 })
        .toBeGreaterThan(0);
      for (const request of model.requests)
        expect((request.body as { temperature?: number }).temperature).toBe(
          isUserSimulatorRequest(request) ? 0.9 : 0.3,
        );
      // The voice playground shares the server's domains and loader.
      expect(assembled.voice.loadDomainData).toBe(assembled.deps.loadDomainData);
    } finally {
      assembled.close();
    }
  }, 90_000);

  it("refuses a spend cap over a model it cannot price, naming it, before serving", () => {
    expect(() => assembleServer(spec({ limits: { dailySpendCap: 5 } }), { env })).toThrow(
      /--daily-spend-cap cannot count the spend of openai-compatible:mock-agent, openai-compatible:mock-user/,
    );
  });

  it("refuses a spec that is not one, naming the field", () => {
    expect(() => assembleServer(spec({ agents: [] }), { env })).toThrow(/serve spec: agents: /);
  });

  it("with scripted models only, serves the keyless paced replay", async () => {
    const assembled = assembleServer(spec({ agents: undefined, users: undefined }), { env });
    try {
      const app = createServer(assembled.deps);
      const info = (await (await app.request("/api/info")).json()) as { scriptedReplay: unknown };
      expect(info.scriptedReplay).not.toBeNull();
    } finally {
      assembled.close();
    }
  });
});
