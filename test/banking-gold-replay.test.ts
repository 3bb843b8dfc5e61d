import { describe, expect, it } from "vitest";
import type { Message } from "../src/core/message.js";
import { builtinDomains } from "../src/domains/registry.js";
import { evaluateSimulation } from "../src/evaluation/evaluate-simulation.js";
import { replayGoldActions, type GoldReplayRecord } from "../src/evaluation/gold-replay.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { readJsonl, tau2DataDir } from "../src/testing/tau2-fixtures.js";

// banking_knowledge's gold replay (the reference's fixture was made under the bm25 config; the generic
// gold-replay test checks that one). No gold action searches the knowledge base, so every offline
// config must give the same lines apart from `retrieval_config`.

const domain = builtinDomains.get("banking_knowledge")!;

describe("banking_knowledge gold replay", () => {
  const fixtures = readJsonl<GoldReplayRecord>("fixtures/gold_replay/banking_knowledge.jsonl");

  it("loads the 97 tasks of tasks/task_*.json, sorted, with user_tools and required_documents", () => {
    const data = new DomainData(domain, tau2DataDir());
    expect(data.tasks.map((t) => t.id)).toEqual(fixtures.map((f) => f.task_id));
    expect(data.tasks).toHaveLength(97);
    const task = data.task("task_010");
    expect(task.user_tools).toEqual(["apply_for_credit_card", "submit_referral"]);
    expect(task.required_documents).toEqual([
      "doc_credit_cards_credit_cards_(general)_001",
      "doc_credit_cards_credit_cards_(general)_002",
    ]);
    expect(data.splits).toBeUndefined();
    expect(data.config).toBe("bm25");
  });

  describe.each(["no_knowledge", "golden_retrieval"])("under %s", (config) => {
    const data = new DomainData(domain, tau2DataDir(), { config });
    it.each(fixtures.map((f) => [f.task_id, f] as const))(
      "%s equals the fixture but for its config",
      (id, fixture) => {
        const record = replayGoldActions(domain.name, data.task(id), (o) => data.newWorld(o));
        expect(record.steps.map((s) => s.output)).toEqual(fixture.steps.map((s) => s.output));
        expect(JSON.parse(JSON.stringify(record))).toEqual({ ...fixture, retrieval_config: config });
      },
    );
  });

  it("one database: the user hash is the agent's, and final.user_db is null", () => {
    const data = new DomainData(domain, tau2DataDir());
    const record = replayGoldActions(domain.name, data.task("task_001"), (o) => data.newWorld(o));
    expect(record.db_hash.user).toBe(record.db_hash.agent);
    expect(record.final.user_db).toBeNull();
  });

  /** The gold actions of a task as a conversation, plus extra calls the agent makes first. */
  function conversation(
    data: DomainData,
    taskId: string,
    extra: Array<[string, Record<string, unknown>]>,
  ): Message[] {
    const record = replayGoldActions(domain.name, data.task(taskId), (o) => data.newWorld(o), {
      includeMessages: true,
    });
    const calls: Message[] = extra.flatMap(([name, args], i) => [
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: `x${i}`, name, arguments: args, requestor: "assistant" }],
      },
      { role: "tool", id: `x${i}`, content: "", requestor: "assistant", error: false },
    ]);
    return [...calls, ...record.messages!];
  }

  it("the evaluator's worlds are built for the task: required reads are logged, extra reads are not", async () => {
    const data = new DomainData(domain, tau2DataDir());
    // A task whose gold actions read the dispute history through call_discoverable_agent_tool.
    const taskId = data.tasks.find((t) =>
      (t.evaluation_criteria?.actions ?? []).some(
        (a) =>
          a.name === "call_discoverable_agent_tool" &&
          a.arguments.agent_tool_name === "get_user_dispute_history_7291",
      ),
    )!.id;
    const env = { newWorld: (o?: Parameters<DomainData["newWorld"]>[0]) => data.newWorld(o) };
    const task = data.task(taskId);
    // An extra read the gold actions do not make (unlock + call) is not logged: the DB still matches.
    const extraRead = conversation(data, taskId, [
      ["unlock_discoverable_agent_tool", { agent_tool_name: "get_pending_replacement_orders_5765" }],
      [
        "call_discoverable_agent_tool",
        {
          agent_tool_name: "get_pending_replacement_orders_5765",
          arguments: '{"credit_card_account_id": "x"}',
        },
      ],
    ]);
    const graded = await evaluateSimulation({ termination_reason: "agent_stop", messages: extraRead }, task, {
      ...env,
      strictReplay: false,
    });
    expect(graded.db_check?.db_match).toBe(true);
    // Leaving out the required read (its call) loses the logged record: the DB no longer matches.
    const withoutRead = conversation(data, taskId, []).filter(
      (m) =>
        !(
          m.role === "assistant" &&
          m.tool_calls?.some(
            (c) =>
              c.name === "call_discoverable_agent_tool" &&
              c.arguments.agent_tool_name === "get_user_dispute_history_7291",
          )
        ),
    );
    const ids = new Set(
      withoutRead.flatMap((m) =>
        m.role === "assistant" || m.role === "user" ? (m.tool_calls ?? []).map((c) => c.id) : [],
      ),
    );
    const pruned = withoutRead.filter((m) => m.role !== "tool" || ids.has(m.id));
    const regraded = await evaluateSimulation({ termination_reason: "agent_stop", messages: pruned }, task, {
      ...env,
      strictReplay: false,
    });
    expect(regraded.db_check?.db_match).toBe(false);
  });
});
