import { useEffect, useMemo, useRef, useState } from "react";
import type { Message } from "../../../src/core/message.js";
import type { ConversationMode } from "../../../src/core/conversation-record.js";
import {
  DomainDetailSchema,
  TaskDetailSchema,
  TaskPageSchema,
  type DomainDetail,
  type ScenarioKind,
  type ServerInfo,
  type TaskDetail,
  type TaskSummary,
} from "../../../src/server/api-schemas.js";
import { answer, api, cancellable, describeError, untilReachable } from "../api.js";
import { ScenarioView } from "../components/scenario-view.js";
import { taskLabel } from "../format.js";
import { href, navigate, type Route } from "../router.js";
import { AgentScoreStrip } from "./agent-score-strip.js";
import { ConversationPane } from "./conversation-pane.js";
import { CustomerBrief } from "./customer-brief.js";
import { PhonePanel } from "./phone-panel.js";
import { PolicyPane, type PolicyFocus } from "./policy-pane.js";
import { TaskPicker } from "./task-picker.js";
import { TracePane, latestPolicyLink } from "./trace-pane.js";
import { VerdictBanner } from "./verdict-banner.js";
import { useConversation } from "./use-conversation.js";
import { WorldCards } from "./world-cards.js";
import { agentWrote } from "./world-records.js";

type Pane = "conversation" | "trace" | "policy";

const KIND_NAMES: Record<ScenarioKind, string> = {
  "happy-path": "happy path",
  "policy-driven": "policy decides",
  trap: "policy forbids",
  lookup: "lookup only",
  contradiction: "contradiction",
  "customer-action": "customer acts",
  "multi-step": "multi-step",
};

/** What a "policy forbids" conversation that ended with no write by the agent shows. */
const HELD_THE_LINE = "no tool call — refusing is what the policy requires";

export function Playground(props: {
  info: ServerInfo;
  route: Extract<Route, { page: "playground" }>;
  onConversationEnd: () => void;
}) {
  const { info, route } = props;
  const known = (name: string | undefined) => name !== undefined && info.domains.some((d) => d.name === name);
  const [domainName, setDomainName] = useState(() =>
    known(route.domain)
      ? route.domain!
      : info.domains.some((d) => d.name === "airline")
        ? "airline"
        : (info.domains[0]?.name ?? ""),
  );
  const [domain, setDomain] = useState<DomainDetail | null>(null);
  /** The domain's tasks loaded so far: its first page with the domain, the rest a page at a time after. */
  const [tasks, setTasks] = useState<readonly TaskSummary[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [mode, setMode] = useState<ConversationMode>("simulate");
  const [agent, setAgent] = useState(info.agents[0] ?? "");
  const [user, setUser] = useState(info.users[0] ?? "");
  /** Perturbations the next simulated conversation meets (by name, default settings). */
  const [perturb, setPerturb] = useState<readonly string[]>([]);
  const [taskId, setTaskId] = useState<string | null>(route.taskId ?? null);
  const [taskDetail, setTaskDetail] = useState<TaskDetail | null>(null);
  const [pane, setPane] = useState<Pane>("conversation");
  const conversation = useConversation();
  const { state } = conversation;
  // The task to select once a domain's tasks have loaded (from a link or an opened conversation).
  const pendingTask = useRef<string | null>(route.taskId ?? null);

  useEffect(() => {
    if (!domainName) return;
    const abort = new AbortController();
    setDomain(null);
    setTasks([]);
    setTaskId(pendingTask.current);
    pendingTask.current = null;
    const unreachable = (error: unknown) => setLoadError(describeError(error));
    const load = async () => {
      const detail = await untilReachable(
        () =>
          answer(
            api.domains[":domain"].$get({ param: { domain: domainName } }, cancellable(abort.signal)),
            DomainDetailSchema,
          ),
        abort.signal,
        unreachable,
      );
      setDomain(detail);
      setTasks(detail.tasks);
      setLoadError(null);
      // The page is shown: the rest of a long task list (telecom's) follows, a page at a time.
      let loaded = detail.tasks;
      while (loaded.length < detail.taskCount) {
        const offset = String(loaded.length);
        const page = await untilReachable(
          () =>
            answer(
              api.domains[":domain"].tasks.$get(
                { param: { domain: domainName }, query: { offset } },
                cancellable(abort.signal),
              ),
              TaskPageSchema,
            ),
          abort.signal,
          unreachable,
        );
        if (page.tasks.length === 0) break;
        loaded = [...loaded, ...page.tasks];
        setTasks(loaded);
        setLoadError(null);
      }
    };
    load().catch((error: unknown) => {
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
    answer(
      api.domains[":domain"].tasks[":taskId"].$get(
        { param: { domain: domainName, taskId } },
        cancellable(abort.signal),
      ),
      TaskDetailSchema,
    )
      .then(setTaskDetail)
      .catch(() => setTaskDetail(null));
    return () => abort.abort();
  }, [domainName, taskId]);

  // A link to another domain, followed without a reload, shows that domain. Keyed on the route itself,
  // not its fields: two hash changes in one task (a click, then a link back) can both be read after the
  // second, leaving the fields unchanged while the selection moved.
  useEffect(() => {
    if (route.domain !== undefined && known(route.domain) && route.domain !== domainName) {
      pendingTask.current = route.taskId ?? null;
      setDomainName(route.domain);
    }
  }, [route]);
  const unknownDomain = route.domain !== undefined && !known(route.domain) ? route.domain : null;

  // A link to another task of the shown domain, followed without a reload, selects it.
  useEffect(() => {
    if (route.taskId !== undefined && (route.domain === undefined || route.domain === domainName))
      setTaskId(route.taskId);
  }, [route]);
  /** Pick a task; the link names it (unless it names a conversation), so a copied link opens it. */
  const selectTask = (id: string) => {
    setTaskId(id);
    if (route.conversationId === undefined) navigate({ page: "playground", domain: domainName, taskId: id });
  };
  // Known only once the whole list is in.
  const unknownTask =
    domain !== null &&
    tasks.length === domain.taskCount &&
    taskId !== null &&
    !tasks.some((t) => t.id === taskId)
      ? taskId
      : null;

  // A link to a conversation (#/play/<domain>/<task>/<id>) opens it: live, or as kept by the server.
  const { open } = conversation;
  useEffect(() => {
    if (route.conversationId && route.conversationId !== state.conversationId) open(route.conversationId);
    // Only a new link opens a conversation; the page's own state changes do not.
    // (state.conversationId is read, not watched: starting a conversation links to it.)
  }, [route.conversationId, open]);

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
  const graded = useMemo(() => state.events.find((e) => e.type === "reward"), [state.events]);
  // "See every check": show the trace and bring the reward card into view, focused.
  const traceSection = useRef<HTMLElement>(null);
  const conversationHeading = useRef<HTMLHeadingElement>(null);
  const [suggestion, setSuggestion] = useState<{ conversationId: string; text: string } | null>(null);
  const [cardRequests, setCardRequests] = useState(0);
  // The policy passage shown highlighted: the newest linked action's, unless a person asked for another
  // since (a card's policy badge).
  const [askedPassage, setAskedPassage] = useState<
    (PolicyFocus & { seq: number; conversationId: string | undefined }) | null
  >(null);
  const latestLink = useMemo(() => latestPolicyLink(state.events), [state.events]);
  const policyFocus = useMemo((): PolicyFocus | null => {
    if (!started || started.domain !== domain?.name) return null;
    if (askedPassage && askedPassage.conversationId === started.conversationId)
      if (latestLink === null || askedPassage.seq >= latestLink.seq) return askedPassage;
    return latestLink && { link: latestLink.link, by: latestLink.by, request: 0 };
  }, [started, domain?.name, askedPassage, latestLink]);
  useEffect(() => {
    if (cardRequests === 0) return;
    const card = traceSection.current?.querySelector<HTMLElement>('[data-testid="reward-card"]');
    if (!card) return;
    card.tabIndex = -1;
    card.scrollIntoView?.({ block: "start" });
    card.focus({ preventScroll: true });
  }, [cardRequests]);
  const last = state.events.at(-1);
  // A "policy forbids" scenario that ended with the agent changing nothing: it held the line.
  const heldTheLine = useMemo(() => {
    if (last?.type !== "conversation-end" || last.reason !== "finished" || !started?.taskId) return null;
    if (domain?.name !== started.domain) return null;
    const chip = domain.scenarios.find((c) => c.taskId === started.taskId && c.kind === "trap");
    if (!chip) return null;
    const writes = new Set(
      domain.tools.filter((t) => t.side === "agent" && t.kind === "write").map((t) => t.name),
    );
    const wrote = agentWrote(state.events, writes);
    return wrote ? null : chip.taskId;
  }, [last, started, domain, state.events]);
  const closing =
    last?.type === "conversation-end" && last.reason !== "finished"
      ? { reason: last.reason, message: last.message }
      : null;

  // An opened conversation shows its own domain, task and models in the setup.
  useEffect(() => {
    if (!started) return;
    if (started.domain !== domainName && known(started.domain)) {
      pendingTask.current = started.taskId;
      setDomainName(started.domain);
    } else if (started.taskId !== null) {
      setTaskId(started.taskId);
    }
    setMode(started.mode);
    // And its own models, when this server offers them (one started elsewhere may use others).
    if (info.agents.includes(started.agent)) setAgent(started.agent);
    if (started.user !== null && info.users.includes(started.user)) setUser(started.user);
  }, [started?.conversationId]);

  const connected = state.connection === "connected";
  const busy =
    connected &&
    (state.status === "starting" || state.status === "running" || state.status === "awaiting-customer");
  const exhausted = info.budget.exhausted;

  const start = (id: string | null, startMode: ConversationMode = mode, openingLine?: string) => {
    if (startMode === "simulate" && !id) return;
    setPane("conversation");
    // The control that started it is disabled while it runs: keyboard focus goes to the conversation
    // rather than dropping to the page (a person's composer takes it once they may type).
    conversationHeading.current?.focus({ preventScroll: true });
    // On a phone the panes are below the setup: bring the conversation into view.
    if (window.matchMedia("(max-width: 900px)").matches)
      document.querySelector(".panes")?.scrollIntoView({ block: "start" });
    void conversation
      .start({
        domain: domainName,
        mode: startMode,
        ...(id ? { taskId: id } : {}),
        agent,
        ...(startMode === "simulate" ? { user } : {}),
        ...(startMode === "simulate" && perturb.length > 0 ? { perturbations: [...perturb] } : {}),
      })
      .then((begun) => {
        // A person who picked a chip starts from its opening line (theirs to edit or send).
        setSuggestion(
          begun && startMode === "human" && openingLine
            ? { conversationId: begun.conversationId, text: openingLine }
            : null,
        );
        if (begun)
          navigate({
            page: "playground",
            domain: begun.domain,
            ...(begun.taskId !== null ? { taskId: begun.taskId } : {}),
            conversationId: begun.conversationId,
          });
      });
  };

  return (
    <div className="playground">
      {info.scriptedReplay && (
        <section className="replay-banner" aria-label="What this is">
          <p>{info.scriptedReplay.what}</p>
          <p>
            <strong>{info.scriptedReplay.replay}</strong> To measure a real model:{" "}
            <code>{info.scriptedReplay.command}</code>
          </p>
        </section>
      )}
      <AgentScoreStrip domain={domainName} agent={agent} user={user} explorer={info.explorer} />
      <div className="playground-body">
        <aside className="setup" aria-label="Conversation setup">
          <div className="field">
            <label htmlFor="domain">Domain</label>
            <select
              id="domain"
              value={domainName}
              onChange={(e) => {
                // The link says the domain shown, so a copied link opens it.
                setDomainName(e.target.value);
                navigate({ page: "playground", domain: e.target.value });
              }}
              disabled={busy}
            >
              {info.domains.map((d) => (
                <option key={d.name} value={d.name}>
                  {d.name} ({d.taskCount} tasks)
                </option>
              ))}
            </select>
          </div>
          {unknownDomain !== null && (
            <p className="error-text" role="alert" data-testid="unknown-domain">
              This server has no domain “{unknownDomain}”; showing {domainName} instead.
            </p>
          )}
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
          {mode === "simulate" && info.perturbations.length > 0 && (
            <details className="field perturb" open={perturb.length > 0}>
              <summary className="label">Perturb{perturb.length > 0 ? ` (${perturb.length})` : ""}</summary>
              <fieldset className="mode" aria-label="Perturbations">
                {info.perturbations.map((p) => (
                  <label key={p.name} title={p.summary}>
                    <input
                      type="checkbox"
                      checked={perturb.includes(p.name)}
                      disabled={busy}
                      onChange={(e) =>
                        setPerturb((current) =>
                          e.target.checked ? [...current, p.name] : current.filter((n) => n !== p.name),
                        )
                      }
                    />
                    {p.name}
                    <span className="muted"> · {p.kind}</span>
                  </label>
                ))}
              </fieldset>
            </details>
          )}
          {loadError && (
            <p className="error-text" role="alert">
              {loadError}
            </p>
          )}
          {domain && domain.scenarios.length > 0 && (
            <div className="field">
              <span className="label" id="scenarios-label">
                Try a real request
              </span>
              <ul className="scenarios" aria-labelledby="scenarios-label">
                {domain.scenarios.map((chip) => (
                  <li key={chip.taskId}>
                    <button
                      type="button"
                      className="scenario-chip"
                      title={`${chip.description}\nTask ${chip.taskId}`}
                      disabled={busy || exhausted}
                      data-kind={chip.kind}
                      onClick={() => {
                        setTaskId(chip.taskId);
                        start(chip.taskId, mode, chip.openingLine);
                      }}
                    >
                      <span className="chip-head">
                        <span className={`kind kind-${chip.kind}`}>{KIND_NAMES[chip.kind]}</span>
                        <span className="chip-label">{chip.label}</span>
                      </span>
                      <span className="chip-line">“{chip.openingLine}”</span>
                      {heldTheLine === chip.taskId && (
                        <span className="chip-held" data-testid="held-the-line">
                          ✓ {HELD_THE_LINE}
                        </span>
                      )}
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          )}
          {unknownTask !== null && (
            <p className="error-text" role="alert" data-testid="unknown-task">
              {domainName} has no task “{unknownTask}”; pick one below.
            </p>
          )}
          {domain && (
            <TaskPicker tasks={tasks} total={domain.taskCount} selected={taskId} onSelect={selectTask} />
          )}
          {taskDetail && (
            <details className="scenario" open={mode === "human"}>
              <summary>The customer's scenario</summary>
              <ScenarioView task={taskDetail.task} />
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
            <h2 id="pane-conversation" tabIndex={-1} ref={conversationHeading}>
              Conversation
              {started && (
                <span className="muted small" title={started.taskId ?? undefined}>
                  {" "}
                  · {started.domain}
                  {started.taskId ? ` · ${taskLabel(started.taskId, 36)}` : ""} · {started.agent}
                </span>
              )}
              {started?.continues && (
                <a
                  className="muted small"
                  data-testid="continues-link"
                  href={href({
                    page: "playground",
                    domain: started.domain,
                    conversationId: started.continues,
                  })}
                >
                  {" "}
                  · continues an earlier conversation
                </a>
              )}
              {started?.perturbations && started.perturbations.length > 0 && (
                <span className="badge perturbed" data-testid="conversation-perturbations">
                  perturbed: {started.perturbations.join(", ")}
                </span>
              )}
            </h2>
            {graded?.type === "reward" && (
              <VerdictBanner
                reward={graded.rewardInfo.reward}
                failedChecks={graded.failedChecks}
                onShowCard={() => {
                  setPane("trace");
                  setCardRequests((n) => n + 1);
                }}
              />
            )}
            {heldTheLine !== null && (
              <p className="held-line" role="status" data-testid="held-the-line-note">
                Policy forbids it, and the agent held the line: {HELD_THE_LINE}.
              </p>
            )}
            {userState !== undefined && <PhonePanel state={userState} />}
            <WorldCards events={state.events} />
            <ConversationPane
              messages={messages}
              status={state.status}
              connection={state.connection}
              attempts={state.attempts}
              lost={state.lost}
              closing={closing}
              human={started?.mode === "human"}
              owner={conversation.owner}
              customerTools={domain?.tools.filter((t) => t.side === "user") ?? []}
              onSay={(text) => conversation.say({ content: text })}
              onUseTool={(name, args) => void conversation.say({ toolCall: { name, arguments: args } })}
              suggestion={suggestion}
              brief={
                started?.mode === "human" &&
                taskDetail &&
                taskDetail.domain === started.domain &&
                taskDetail.task.id === started.taskId ? (
                  <CustomerBrief task={taskDetail.task} />
                ) : undefined
              }
              onContinue={() => {
                if (!started) return;
                void conversation.resume(started.conversationId).then((begun) => {
                  if (begun)
                    navigate({
                      page: "playground",
                      domain: begun.domain,
                      ...(begun.taskId !== null ? { taskId: begun.taskId } : {}),
                      conversationId: begun.conversationId,
                    });
                });
              }}
              onEnd={() => void conversation.end()}
              onStopWaiting={() =>
                conversation.abandon(
                  "You stopped waiting for the server: this conversation ends here, ungraded.",
                )
              }
            />
          </section>
          <section
            ref={traceSection}
            className={`pane${pane === "trace" ? " active" : ""}`}
            aria-labelledby="pane-trace"
          >
            <h2 id="pane-trace">Trace</h2>
            <TracePane
              events={state.events}
              onShowPolicy={(link, by) => {
                setAskedPassage((asked) => ({
                  link,
                  by,
                  request: (asked?.request ?? 0) + 1,
                  seq: latestLink?.seq ?? -1,
                  conversationId: started?.conversationId,
                }));
                setPane("policy");
              }}
            />
          </section>
          <section className={`pane${pane === "policy" ? " active" : ""}`} aria-labelledby="pane-policy">
            <h2 id="pane-policy">Policy</h2>
            {domain ? (
              <PolicyPane
                policy={domain.policy}
                documentsOf={domain.hasDocuments ? domain.name : undefined}
                focus={policyFocus}
              />
            ) : (
              <p className="muted">Loading…</p>
            )}
          </section>
        </div>
      </div>
    </div>
  );
}
