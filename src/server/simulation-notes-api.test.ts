import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldAgent } from "../agents/gold-agent.js";
import type { Results } from "../core/simulation.js";
import { builtinDomains } from "../domains/registry.js";
import { Store } from "../store/store.js";
import { fixtureDomainData, tau2DataDir } from "../testing/tau2-fixtures.js";
import { goldUser } from "../users/gold-user.js";
import { buildResults } from "../../test/web/helpers/seed-results.js";
import {
  AddNoteResponseSchema,
  ApiErrorSchema,
  RunDetailSchema,
  SimulationNotesResponseSchema,
  type RunSummary,
} from "./api-schemas.js";
import { createServer } from "./create-server.js";
import { memoryRunCatalog, sqliteRunCatalog, type RunCatalog } from "./run-catalog.js";

const data = fixtureDomainData("mock");
let folder: string;
let results: Results;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), "passk-notes-api-"));
  results = await buildResults(data, {
    taskIds: ["create_task_1", "update_task_1"],
    trials: 2,
    fails: (task, trial) => task === "update_task_1" && trial === 1,
  });
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function serverOver(store: RunCatalog) {
  return createServer({
    domains: builtinDomains,
    dataDir: tau2DataDir(),
    participants: {
      agents: ["scripted:gold"],
      users: ["scripted:gold"],
      agentFor: () => goldAgent,
      customerFor: () => goldUser,
    },
    store,
  });
}
type Server = ReturnType<typeof serverOver>;

async function importRun(server: Server): Promise<string> {
  const imported = await server.request("/api/runs/import?name=run.json", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(results),
  });
  expect(imported.status).toBe(201);
  return ((await imported.json()) as { run: RunSummary }).run.id;
}

const notesPath = (runId: string, task = "update_task_1", trial = 1) =>
  `/api/runs/${runId}/simulations/mock/${task}/${trial}/notes`;
const post = (server: Server, url: string, body: unknown, headers: Record<string, string> = {}) =>
  server.request(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const errorOf = async (response: Response) => ApiErrorSchema.parse(await response.json());

const stores = {
  sqlite: () => sqliteRunCatalog(Store.open(path.join(folder, `${Math.random()}.db`), { create: true })),
  memory: () => memoryRunCatalog(),
};

describe.each(Object.keys(stores) as Array<keyof typeof stores>)("notes API over the %s store", (kind) => {
  it("adds notes to a simulation, lists them, shows task issues in the run's grid, and deletes one", async () => {
    const server = serverOver(stores[kind]());
    const runId = await importRun(server);
    const empty = SimulationNotesResponseSchema.parse(await (await server.request(notesPath(runId))).json());
    expect(empty).toEqual({ notes: [], writable: true });

    const plain = await post(server, notesPath(runId), { text: "the agent apologised three times" });
    expect(plain.status).toBe(201);
    const flagged = await post(server, notesPath(runId), {
      text: "the gold update names a task that does not exist",
      taskIssue: true,
      category: "gold action wrong",
    });
    expect(flagged.status).toBe(201);
    const { note } = AddNoteResponseSchema.parse(await flagged.json());
    expect(note).toMatchObject({
      runId,
      domain: "mock",
      taskId: "update_task_1",
      trial: 1,
      taskIssue: true,
      category: "gold action wrong",
    });
    expect(note.simulationId).toBe(
      results.simulations.find((s) => s.task_id === "update_task_1" && s.trial === 1)!.id,
    );

    const listed = SimulationNotesResponseSchema.parse(await (await server.request(notesPath(runId))).json());
    expect(listed.notes.map((n) => [n.text, n.taskIssue])).toEqual([
      ["the agent apologised three times", false],
      ["the gold update names a task that does not exist", true],
    ]);
    // Another simulation of the run has none.
    const other = SimulationNotesResponseSchema.parse(
      await (await server.request(notesPath(runId, "update_task_1", 0))).json(),
    );
    expect(other.notes).toEqual([]);

    const detail = RunDetailSchema.parse(await (await server.request(`/api/runs/${runId}`)).json());
    expect(detail.taskIssues).toBe(1);
    const cells = detail.grid.flatMap((row) => row.cells.map((cell) => ({ task: row.taskId, ...cell })));
    expect(cells.filter((c) => c.taskIssue).map((c) => [c.task, c.trial, c.notes])).toEqual([
      ["update_task_1", 1, 2],
    ]);

    const removed = await server.request(`/api/runs/${runId}/notes/${note.id}`, { method: "DELETE" });
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({ id: note.id });
    const again = await server.request(`/api/runs/${runId}/notes/${note.id}`, { method: "DELETE" });
    expect(again.status).toBe(404);
    expect((await errorOf(again)).code).toBe("note_not_found");
    const after = RunDetailSchema.parse(await (await server.request(`/api/runs/${runId}`)).json());
    expect(after.taskIssues).toBe(0);
    expect(after.grid.flatMap((row) => row.cells).filter((c) => c.notes !== undefined)).toHaveLength(1);
  });

  it("refuses bad notes with a sentence naming the problem, and stores none of them", async () => {
    const server = serverOver(stores[kind]());
    const runId = await importRun(server);
    const refusals: Array<[unknown, string]> = [
      [{ text: "   " }, "body.text: text must not be empty"],
      [{ text: "x".repeat(4001) }, "body.text: text is longer than 4000 characters"],
      [{ text: "ok", taskIssue: "yes" }, "body.taskIssue: taskIssue must be true or false"],
      [{ text: "ok", category: "c".repeat(81) }, "body.category: category is longer than 80 characters"],
      [{ text: "ok", author: "me" }, 'body: Unrecognized key: "author"'],
      [{}, "body.text: text must be a string"],
    ];
    for (const [body, message] of refusals) {
      const response = await post(server, notesPath(runId), body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(await errorOf(response)).toEqual({ code: "invalid_request", message });
    }
    const notJson = await server.request(notesPath(runId), {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: "a note",
    });
    expect(notJson.status).toBe(400);
    expect((await errorOf(notJson)).message).toMatch(/send a JSON body with Content-Type: application\/json/);
    const tooLarge = await post(server, notesPath(runId), { text: "x".repeat(70_000) });
    expect(tooLarge.status).toBe(413);
    // A simulation the run does not have, and a note id that is no number.
    const missing = await post(server, notesPath(runId, "update_task_1", 7), { text: "where?" });
    expect(missing.status).toBe(404);
    expect((await errorOf(missing)).code).toBe("simulation_not_found");
    const badId = await server.request(`/api/runs/${runId}/notes/first`, { method: "DELETE" });
    expect(badId.status).toBe(400);
    expect((await errorOf(badId)).message).toBe("param.noteId: noteId must be a number");
    const listed = SimulationNotesResponseSchema.parse(await (await server.request(notesPath(runId))).json());
    expect(listed.notes).toEqual([]);
  });

  it("refuses notes from another origin, and changes nothing", async () => {
    const server = serverOver(stores[kind]());
    const runId = await importRun(server);
    const added = await post(server, notesPath(runId), { text: "mine" });
    const { note } = AddNoteResponseSchema.parse(await added.json());
    const foreign = { Origin: "http://evil.example" };
    const add = await post(server, `http://localhost${notesPath(runId)}`, { text: "pwned" }, foreign);
    expect(add.status).toBe(403);
    const remove = await server.request(`http://localhost/api/runs/${runId}/notes/${note.id}`, {
      method: "DELETE",
      headers: foreign,
    });
    expect(remove.status).toBe(403);
    const listed = SimulationNotesResponseSchema.parse(await (await server.request(notesPath(runId))).json());
    expect(listed.notes.map((n) => n.text)).toEqual(["mine"]);
  });
});

describe("notes on a read-only explorer", () => {
  it("lists none, says it takes none, and refuses to add or delete one", async () => {
    // A store that keeps no notes (as one that cannot rename or delete runs): the explorer only reads.
    const { notes: _notes, ...readOnly } = memoryRunCatalog();
    const server = serverOver(readOnly);
    const runId = await importRun(server);
    const listed = SimulationNotesResponseSchema.parse(await (await server.request(notesPath(runId))).json());
    expect(listed).toEqual({ notes: [], writable: false });
    const add = await post(server, notesPath(runId), { text: "let me in", taskIssue: true });
    expect(add.status).toBe(404);
    expect(await errorOf(add)).toEqual({
      code: "feature_disabled",
      message: "this server's store cannot keep notes",
    });
    const remove = await server.request(`/api/runs/${runId}/notes/1`, { method: "DELETE" });
    expect(remove.status).toBe(404);
    expect((await errorOf(remove)).code).toBe("feature_disabled");
    const detail = RunDetailSchema.parse(await (await server.request(`/api/runs/${runId}`)).json());
    expect(detail.taskIssues).toBe(0);
  });

  it("answers 404 for notes when the server has no store", async () => {
    const server = createServer({
      domains: builtinDomains,
      dataDir: tau2DataDir(),
      participants: {
        agents: ["scripted:gold"],
        users: ["scripted:gold"],
        agentFor: () => goldAgent,
        customerFor: () => goldUser,
      },
    });
    const add = await post(server, notesPath("any-run"), { text: "nowhere to keep it" });
    expect(add.status).toBe(404);
    expect((await errorOf(add)).code).toBe("feature_disabled");
  });
});
