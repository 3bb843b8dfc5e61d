import { describe, expect, it } from "vitest";
import { goldAgent } from "../../src/agents/gold-agent.js";
import { builtinDomains } from "../../src/domains/registry.js";
import { createServer } from "../../src/server/create-server.js";
import { memoryRunCatalog } from "../../src/server/run-catalog.js";
import { tau2DataDir } from "../../src/testing/tau2-fixtures.js";
import { goldUser } from "../../src/users/gold-user.js";

// A team exposes `passk serve`; strangers' pages and DNS names reach it. Each case: what an attacker
// sends, and that the server refuses it with a sentence and changes nothing.

function server(allowedHosts: string[] = [], limits: { importsPerHour?: number } = {}) {
  const store = memoryRunCatalog();
  const app = createServer({
    domains: builtinDomains,
    dataDir: tau2DataDir(),
    participants: {
      agents: ["scripted:gold"],
      users: ["scripted:gold"],
      agentFor: () => goldAgent,
      customerFor: () => goldUser,
    },
    store,
    allowedHosts,
    limits,
  });
  return { app, store };
}

const RESULTS = JSON.stringify({ timestamp: null, info: {}, tasks: [], simulations: [] });

describe("hostile requests to the server", () => {
  it.each(["evil.example", "passk.attacker.test", "localhost.evil.example"])(
    "refuses a Host it does not serve (DNS rebinding): %s",
    async (host) => {
      const { app } = server();
      for (const [method, path] of [
        ["GET", "/api/info"],
        ["GET", "/api/runs"],
        ["POST", "/api/runs/import?name=x"],
        ["GET", "/"],
      ] as const) {
        const response = await app.request(`http://${host}:8787${path}`, {
          method,
          ...(method === "POST" ? { body: RESULTS, headers: { "Content-Type": "application/json" } } : {}),
        });
        expect(response.status, `${method} ${path}`).toBe(421);
        expect(((await response.json()) as { message: string }).message).toContain(`not "${host}"`);
      }
    },
  );

  it.each(["localhost", "127.0.0.1", "[::1]", "192.168.1.20", "[fe80::1]"])(
    "answers its own names and any IP address: %s",
    async (host) => {
      const { app } = server();
      expect((await app.request(`http://${host}:8787/api/info`)).status).toBe(200);
    },
  );

  it("answers a deployment's name given with --allowed-host", async () => {
    const { app } = server(["passk.example.com"]);
    expect((await app.request("http://PASSK.example.com/api/info")).status).toBe(200);
    expect((await app.request("http://other.example.com/api/info")).status).toBe(421);
  });

  it.each<{ name: string; headers: Record<string, string>; status: number }>([
    {
      name: "a text/plain upload (a form post from any page)",
      headers: { "Content-Type": "text/plain" },
      status: 400,
    },
    {
      name: "a JSON upload from another origin",
      headers: { "Content-Type": "application/json", Origin: "http://evil.example" },
      status: 403,
    },
    {
      name: "a JSON upload from another port of the same host",
      headers: { "Content-Type": "application/json", Origin: "http://localhost:9999" },
      status: 403,
    },
    {
      name: "a cross-site request without Origin",
      headers: { "Content-Type": "application/json", "Sec-Fetch-Site": "cross-site" },
      status: 403,
    },
    {
      name: "an opaque Origin (sandboxed frame)",
      headers: { "Content-Type": "application/json", Origin: "null", "Sec-Fetch-Site": "cross-site" },
      status: 403,
    },
  ])("refuses $name and stores nothing", async ({ headers, status }) => {
    const { app, store } = server();
    const response = await app.request("http://localhost:8787/api/runs/import?name=x", {
      method: "POST",
      headers,
      body: RESULTS,
    });
    expect(response.status).toBe(status);
    expect(((await response.json()) as { message: string }).message.length).toBeGreaterThan(20);
    expect(store.listRuns()).toEqual([]);
  });

  it("refuses ending a conversation from another origin, and allows its own pages", async () => {
    const { app } = server();
    const started = await app.request("http://localhost:8787/api/conversations", {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: "http://localhost:8787" },
      body: JSON.stringify({ domain: "mock", taskId: "create_task_1", mode: "human" }),
    });
    expect(started.status).toBe(201);
    const { conversationId, ownerToken } = (await started.json()) as {
      conversationId: string;
      ownerToken: string;
    };
    const foreign = await app.request(`http://localhost:8787/api/conversations/${conversationId}/end`, {
      method: "POST",
      headers: { Origin: "http://evil.example", "Passk-Owner-Token": ownerToken },
    });
    expect(foreign.status).toBe(403);
    const own = await app.request(`http://localhost:8787/api/conversations/${conversationId}/end`, {
      method: "POST",
      headers: {
        Origin: "http://localhost:8787",
        "Sec-Fetch-Site": "same-origin",
        "Passk-Owner-Token": ownerToken,
      },
    });
    expect(own.status).toBe(200);
  });
});

describe("heavy uploads", () => {
  it("a results file of 2 tasks × 8,000 trials imports at once and the server keeps answering", async () => {
    const { app } = server();
    const simulations = ["create_task_1", "update_task_1"].flatMap((task) =>
      Array.from({ length: 8000 }, (_, trial) => ({
        id: `${task}-${trial}`,
        task_id: task,
        trial,
        termination_reason: "user_stop",
        reward_info: { reward: trial % 3 === 0 ? 0 : 1, reward_basis: ["DB"], reward_breakdown: { DB: 1 } },
        messages: [{ role: "assistant", content: "Hi! How can I help you today?" }],
      })),
    );
    const body = JSON.stringify({
      timestamp: null,
      info: { num_trials: 8000, environment_info: { domain_name: "mock" } },
      tasks: [],
      simulations,
    });
    const started = performance.now();
    const imported = await app.request("http://localhost/api/runs/import?name=big", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body,
    });
    expect(imported.status).toBe(201);
    const { run } = (await imported.json()) as {
      run: { passHatKs: Record<string, number>; simulations: number };
    };
    expect(run.simulations).toBe(16000);
    // pass^k for k ≤ 32 (not 8,000 columns): linear in the trials.
    expect(Object.keys(run.passHatKs)).toHaveLength(32);
    expect((await app.request("http://localhost/api/info")).status).toBe(200);
    // Generous: it takes well under a second here; quadratic metrics took minutes.
    expect(performance.now() - started).toBeLessThan(30_000);
  });
});

describe("many uploads from one client", () => {
  // Four 60 MB uploads a minute grew the store ~3.6 GB/min within the general rate limit: imports have
  // their own hourly limit per client address (--imports-per-hour).
  it("past --imports-per-hour: 429 with Retry-After and a sentence, and the store does not grow", async () => {
    const { app, store } = server([], { importsPerHour: 3 });
    const body = JSON.stringify({
      timestamp: null,
      info: { num_trials: 1, environment_info: { domain_name: "mock" } },
      tasks: [],
      simulations: [
        {
          id: "s",
          task_id: "create_task_1",
          trial: 0,
          termination_reason: "user_stop",
          reward_info: { reward: 1, reward_basis: ["DB"], reward_breakdown: { DB: 1 } },
          messages: [{ role: "assistant", content: "Hi! How can I help you today?" }],
        },
      ],
    });
    const upload = () =>
      app.request("http://localhost/api/runs/import?name=x&again=true", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
      });
    for (let i = 0; i < 3; i++) expect((await upload()).status).toBe(201);
    const before = store.listRuns().length;
    const refused = await upload();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(60);
    expect(((await refused.json()) as { message: string }).message).toContain("at most 3 per hour");
    expect(store.listRuns().length).toBe(before);
    // Browsing is not an import: it still answers.
    expect((await app.request("http://localhost/api/runs")).status).toBe(200);
  });
});

describe("the server's error boundary", () => {
  it("a full disk during an upload is a 503 with a sentence, no stack and no server path", async () => {
    const store = memoryRunCatalog();
    const full: typeof store = {
      ...store,
      listRuns: () => store.listRuns(),
      importResults: () => {
        throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
          code: "ENOSPC",
          path: "/srv/passk/.passk/passk.db-wal",
        });
      },
    };
    const app = createServer({
      domains: builtinDomains,
      dataDir: tau2DataDir(),
      participants: {
        agents: [],
        users: [],
        agentFor: () => goldAgent,
        customerFor: () => goldUser,
      },
      store: full,
    });
    const valid = JSON.stringify({
      timestamp: null,
      info: { num_trials: 1, environment_info: { domain_name: "mock" } },
      tasks: [],
      simulations: [
        {
          id: "s1",
          task_id: "create_task_1",
          trial: 0,
          termination_reason: "user_stop",
          reward_info: { reward: 1 },
          messages: [{ role: "assistant", content: "Hi! How can I help you today?" }],
        },
      ],
    });
    const response = await app.request("http://localhost/api/runs/import?name=x", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: valid,
    });
    expect(response.status, await response.clone().text()).toBe(503);
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe("system_failure");
    expect(body.message).toMatch(/^the disk is full: nothing was lost/);
    expect(body.message).not.toContain("/srv/passk");
  });
});

describe("results files from strangers", () => {
  const upload = (app: ReturnType<typeof server>["app"], body: string, name = "x") =>
    app.request(`http://localhost/api/runs/import?name=${encodeURIComponent(name)}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body,
    });

  it("__proto__ keys pollute nothing", async () => {
    const { app } = server();
    const body =
      '{"__proto__": {"polluted": true}, "timestamp": null, "info": {"__proto__": {"isAdmin": true}, ' +
      '"environment_info": {"domain_name": "mock"}}, "tasks": [], "simulations": [{"id": "s", "task_id": "create_task_1", ' +
      '"trial": 0, "termination_reason": "user_stop", "reward_info": {"reward": 1, "__proto__": {"reward": 0}}, ' +
      '"messages": [], "constructor": {"prototype": {"polluted": true}}}]}';
    const response = await upload(app, body);
    expect([201, 400]).toContain(response.status);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it("a JSON nested 100,000 levels deep is a 400 with a sentence, and the server goes on", async () => {
    const { app } = server();
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const response = await upload(app, deep);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message.length).toBeGreaterThan(20);
    expect((await app.request("http://localhost/api/info")).status).toBe(200);
  });

  it("a name of 100 KB is cut, and markup in it stays text (JSON), never HTML", async () => {
    const { app, store } = server();
    const body = JSON.stringify({
      timestamp: null,
      info: { environment_info: { domain_name: "mock" } },
      tasks: [],
      simulations: [
        {
          id: "s",
          task_id: "create_task_1",
          trial: 0,
          termination_reason: "user_stop",
          reward_info: { reward: 1 },
          messages: [],
        },
      ],
    });
    const response = await upload(app, body, `<img src=x onerror=alert(1)>${"a".repeat(100_000)}`);
    expect(response.status).toBe(201);
    expect(response.headers.get("Content-Type")).toContain("application/json");
    const [run] = store.listRuns();
    expect(run!.label!.length).toBeLessThanOrEqual(200);
  });
});
