import { useEffect, useMemo, useState } from "react";
import type { Message } from "../../../src/core/message.js";
import {
  DomainDetailSchema,
  TaskDetailSchema,
  type ConversationMode,
  type DomainDetail,
  type ServerInfo,
  type TaskDetail,
} from "../../../src/server/api-schemas.js";
import { describeError, getJson } from "../api.js";
import { ConversationPane } from "./conversation-pane.js";
import { PhonePanel } from "./phone-panel.js";
import { PolicyPane } from "./policy-pane.js";
import { TaskPicker } from "./task-picker.js";
import { TracePane } from "./trace-pane.js";
import { useConversation } from "./use-conversation.js";

type Pane = "conversation" | "trace" | "policy";

function scenarioText(detail: TaskDetail | null): string | null {
  const instructions = detail?.task.user_scenario.instructions;
  if (!instructions) return null;
  if (typeof instructions === "string") return instructions;
  return [
    instructions.reason_for_call,
    instructions.known_info,
    instructions.unknown_info,
    instructions.task_instructions,
  ]
    .filter((part): part is string => typeof part === "string" && part !== "")
    .join("\n\n");
}

export function Playground(props: { info: ServerInfo; onConversationEnd: () => void }) {
  const { info } = props;
  const [domainName, setDomainName] = useState(() =>
    info.domains.some((d) => d.name === "airline") ? "airline" : (info.domains[0]?.name ?? ""),
  );
  const [domain, setDomain] = useState<DomainDetail | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [mode, setMode] = useState<ConversationMode>("simulate");
  const [agent, setAgent] = useState(info.agents[0] ?? "");
  const [user, setUser] = useState(info.users[0] ?? "");
  const [taskId, setTaskId] = useState<string | null>(null);
  const [taskDetail, setTaskDetail] = useState<TaskDetail | null>(null);
  const [pane, setPane] = useState<Pane>("conversation");
  const conversation = useConversation();
  const { state } = conversation;

  useEffect(() => {
    if (!domainName) return;
    const abort = new AbortController();
    setDomain(null);
    setTaskId(null);
    getJson(`/api/domains/${encodeURIComponent(domainName)}`, DomainDetailSchema, abort.signal)
      .then((detail) => {
        setDomain(detail);
        setLoadError(null);
      })
      .catch((error: unknown) => {
        if (!abort.signal.aborted) setLoadError(describeError(error));
      });
    return () => abort.abort();
  }, [domainName]);

  useEffect(() => {
    if (!taskId || !domainName) {
      setTaskDetail(null);
      return;
    }
    const abort = new AbortController();
    getJson(
      `/api/domains/${encodeURIComponent(domainName)}/tasks/${encodeURIComponent(taskId)}`,
      TaskDetailSchema,
      abort.signal,
    )
      .then(setTaskDetail)
      .catch(() => setTaskDetail(null));
    return () => abort.abort();
  }, [domainName, taskId]);

  const ended = state.status === "ended";
  const { onConversationEnd } = props;
  useEffect(() => {
    if (ended) onConversationEnd();
  }, [ended, onConversationEnd]);

  const messages = useMemo(
    () => state.events.flatMap((e): Message[] => (e.type === "message" ? [e.message] : [])),
    [state.events],
  );
  const userState = useMemo(() => {
    for (let i = state.events.length - 1; i >= 0; i--) {
      const event = state.events[i]!;
      if (event.type === "user-state") return event.state;
    }
    return undefined;
  }, [state.events]);
  const started = state.events[0]?.type === "conversation-start" ? state.events[0] : undefined;
  const busy =
    state.status === "starting" || state.status === "running" || state.status === "awaiting-customer";
  const exhausted = info.budget.exhausted;

  const start = (id: string | null, startMode: ConversationMode = mode) => {
    if (startMode === "simulate" && !id) return;
    void conversation.start({
      domain: domainName,
      mode: startMode,
      ...(id ? { taskId: id } : {}),
      agent,
      ...(startMode === "simulate" ? { user } : {}),
    });
    setPane("conversation");
  };

  return (
    <div className="playground">
      <aside className="setup" aria-label="Conversation setup">
        <div className="field">
          <label htmlFor="domain">Domain</label>
          <select
            id="domain"
            value={domainName}
            onChange={(e) => setDomainName(e.target.value)}
            disabled={busy}
          >
            {info.domains.map((d) => (
              <option key={d.name} value={d.name}>
                {d.name} ({d.taskCount} tasks)
              </option>
            ))}
          </select>
        </div>
        <fieldset className="field mode">
          <legend>Customer</legend>
          <label>
            <input
              type="radio"
              name="mode"
              value="simulate"
              checked={mode === "simulate"}
              onChange={() => setMode("simulate")}
              disabled={busy}
            />
            Simulated
          </label>
          <label>
            <input
              type="radio"
              name="mode"
              value="human"
              checked={mode === "human"}
              onChange={() => setMode("human")}
              disabled={busy}
            />
            Me (type as the customer)
          </label>
        </fieldset>
        <div className="field">
          <label htmlFor="agent">Agent model</label>
          <select id="agent" value={agent} onChange={(e) => setAgent(e.target.value)} disabled={busy}>
            {info.agents.map((spec) => (
              <option key={spec}>{spec}</option>
            ))}
          </select>
        </div>
        {mode === "simulate" && (
          <div className="field">
            <label htmlFor="user">User model</label>
            <select id="user" value={user} onChange={(e) => setUser(e.target.value)} disabled={busy}>
              {info.users.map((spec) => (
                <option key={spec}>{spec}</option>
              ))}
            </select>
          </div>
        )}
        {loadError && (
          <p className="error-text" role="alert">
            {loadError}
          </p>
        )}
        {domain && domain.scenarios.length > 0 && (
          <div className="field">
            <span className="label">Scenarios</span>
            <div className="chips">
              {domain.scenarios.map((chip) => (
                <button
                  key={chip.kind}
                  type="button"
                  className="chip"
                  title={`${chip.description} (task ${chip.taskId})`}
                  disabled={busy || exhausted}
                  onClick={() => {
                    setTaskId(chip.taskId);
                    start(chip.taskId);
                  }}
                >
                  {chip.label}
                </button>
              ))}
            </div>
          </div>
        )}
        {domain && <TaskPicker tasks={domain.tasks} selected={taskId} onSelect={setTaskId} />}
        {taskDetail && (
          <details className="scenario" open={mode === "human"}>
            <summary>The customer's scenario</summary>
            <p>{scenarioText(taskDetail)}</p>
          </details>
        )}
        <div className="actions">
          <button
            type="button"
            className="primary"
            disabled={busy || exhausted || !domain || (mode === "simulate" && !taskId)}
            onClick={() => start(taskId)}
          >
            {mode === "simulate" ? "Simulate" : taskId ? "Start conversation" : "Start a free conversation"}
          </button>
          {mode === "simulate" && !taskId && <p className="hint muted">Pick a task to simulate.</p>}
          {state.error && (
            <p className="error-text" role="alert">
              {state.error}
            </p>
          )}
        </div>
      </aside>
      <div className="panes" data-active={pane}>
        <nav className="pane-tabs" aria-label="Panes">
          {(["conversation", "trace", "policy"] as const).map((p) => (
            <button key={p} type="button" aria-pressed={pane === p} onClick={() => setPane(p)}>
              {p === "conversation" ? "Chat" : p === "trace" ? "Trace" : "Policy"}
            </button>
          ))}
        </nav>
        <section
          className={`pane${pane === "conversation" ? " active" : ""}`}
          aria-labelledby="pane-conversation"
        >
          <h2 id="pane-conversation">
            Conversation
            {started && (
              <span className="muted small">
                {" "}
                · {started.domain}
                {started.taskId ? ` · ${started.taskId}` : ""} · {started.agent}
              </span>
            )}
          </h2>
          {userState !== undefined && <PhonePanel state={userState} />}
          <ConversationPane
            messages={messages}
            status={state.status}
            human={started?.mode === "human"}
            customerTools={domain?.tools.filter((t) => t.side === "user") ?? []}
            onSay={(text) => void conversation.say({ content: text })}
            onUseTool={(name, args) => void conversation.say({ toolCall: { name, arguments: args } })}
            onEnd={() => void conversation.end()}
          />
        </section>
        <section className={`pane${pane === "trace" ? " active" : ""}`} aria-labelledby="pane-trace">
          <h2 id="pane-trace">Trace</h2>
          <TracePane events={state.events} />
        </section>
        <section className={`pane${pane === "policy" ? " active" : ""}`} aria-labelledby="pane-policy">
          <h2 id="pane-policy">Policy</h2>
          {domain ? <PolicyPane policy={domain.policy} /> : <p className="muted">Loading…</p>}
        </section>
      </div>
    </div>
  );
}
