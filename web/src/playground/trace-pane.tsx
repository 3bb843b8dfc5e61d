import { useEffect, useLayoutEffect, useMemo, useRef } from "react";
import type { ToolCall, ToolMessage } from "../../../src/core/message.js";
import type {
  FailedCheck,
  PolicyLinkView,
  RecordChange,
  SequencedEvent,
} from "../../../src/server/api-schemas.js";
import type { RewardInfo } from "../../../src/core/simulation.js";
import type { Review } from "../../../src/review/blame.js";
import { RewardCard } from "../components/reward-card.js";
import { ShellTerminal, shellCommand } from "../components/shell-terminal.js";
import { WorldChangeCard } from "../components/record-diff.js";
import { formatCost } from "../format.js";
import { MarkdownBlockView, parseMarkdown } from "../components/markdown.js";
import { KNOWLEDGE_SEARCH_TOOLS, returnedDocuments } from "./knowledge-hits.js";

type TraceItem =
  | {
      kind: "tool";
      key: string;
      call: ToolCall;
      result?: ToolMessage;
      latencyMs?: number;
      policyLink?: PolicyLinkView | undefined;
    }
  | { kind: "refusal"; key: string; text: string; policyLink: PolicyLinkView }
  | { kind: "world"; key: string; side: "agent" | "user"; records: RecordChange[] }
  | {
      kind: "end";
      key: string;
      terminationReason: string;
      error: string | null;
      durationSeconds: number;
      agentCost: number | null;
      userCost: number | null;
      customerIsPerson: boolean;
    }
  | {
      kind: "reward";
      key: string;
      rewardInfo: RewardInfo;
      failedChecks: FailedCheck[];
      review: Review | null;
      customerIsPerson: boolean;
    }
  | { kind: "closed"; key: string; reason: string; message: string | null };

/** Trace items from the event stream: one card per tool call (filled in when it returns), world diffs, the end. */
export function traceItems(events: readonly SequencedEvent[]): TraceItem[] {
  const items: TraceItem[] = [];
  const open = new Map<string, number>();
  let customerIsPerson = false;
  for (const event of events) {
    const key = String(event.seq);
    switch (event.type) {
      case "tool-call-start":
        open.set(event.call.id, items.length);
        items.push({ kind: "tool", key, call: event.call, policyLink: event.policyLink });
        break;
      case "message":
        if (event.policyLink)
          items.push({
            kind: "refusal",
            key,
            text: event.message.content ?? "",
            policyLink: event.policyLink,
          });
        break;
      case "tool-call-end": {
        const index = open.get(event.call.id);
        const item = {
          kind: "tool" as const,
          key,
          call: event.call,
          result: event.result,
          latencyMs: event.latencyMs,
          policyLink: event.policyLink,
        };
        if (index === undefined) items.push(item);
        else items[index] = { ...item, key: items[index]!.key };
        open.delete(event.call.id);
        break;
      }
      case "world-change":
        if (event.records.length > 0)
          items.push({ kind: "world", key, side: event.side, records: event.records });
        break;
      case "simulation-end":
        items.push({ kind: "end", key, ...event, customerIsPerson });
        break;
      case "conversation-start":
        customerIsPerson = event.mode === "human";
        break;
      case "reward":
        items.push({
          kind: "reward",
          key,
          rewardInfo: event.rewardInfo,
          failedChecks: event.failedChecks,
          review: event.review ?? null,
          customerIsPerson,
        });
        break;
      case "conversation-end":
        if (event.reason !== "finished")
          items.push({ kind: "closed", key, reason: event.reason, message: event.message });
        break;
    }
  }
  return items;
}

/** What perturbations did to a tool call's answer (`run --perturb`), as marked on it. */
function marksOf(result: ToolMessage | undefined): Array<{ perturbation: string; effect: string }> {
  const marks = (result as { perturbations?: unknown } | undefined)?.perturbations;
  if (!Array.isArray(marks)) return [];
  return marks.flatMap((mark: unknown) => {
    const { perturbation, effect } = (mark ?? {}) as { perturbation?: unknown; effect?: unknown };
    return typeof perturbation === "string" && typeof effect === "string" ? [{ perturbation, effect }] : [];
  });
}

/** The newest action linked to a policy passage in the stream: what the policy pane highlights. */
export function latestPolicyLink(
  events: readonly SequencedEvent[],
): { seq: number; link: PolicyLinkView; by: string } | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if ((event.type === "tool-call-start" || event.type === "message") && event.policyLink)
      return { seq: event.seq, link: event.policyLink, by: linkedBy(event) };
  }
  return null;
}

function linkedBy(event: SequencedEvent): string {
  return event.type === "tool-call-start" || event.type === "tool-call-end"
    ? event.call.name
    : "the agent's refusal";
}

/** The documents a knowledge-base search returned to the agent, each opening to its text. */
function ReturnedDocuments(props: { output: string }) {
  const documents = useMemo(() => returnedDocuments(props.output), [props.output]);
  if (documents.length === 0) return null;
  return (
    <ol className="returned-documents" data-testid="returned-documents" aria-label="Documents returned">
      {documents.map((document) => (
        <li key={document.rank}>
          <details>
            <summary>
              <strong>{document.title}</strong> <code className="muted">{document.id}</code>{" "}
              <span className="muted">score {document.score}</span>
            </summary>
            <div className="markdown">
              {parseMarkdown(document.content).map((block, i) => (
                <MarkdownBlockView key={i} block={block} />
              ))}
            </div>
          </details>
        </li>
      ))}
    </ol>
  );
}

/** What a card's policy badge does: show the passage in the policy pane. */
export type ShowPolicy = (link: PolicyLinkView, by: string) => void;

/** A badge naming the policy section an action exercises; pressing it shows the passage. */
export function PolicyLinkBadge(props: {
  link: PolicyLinkView;
  by: string;
  onShow?: ShowPolicy | undefined;
}) {
  const { link } = props;
  const section = link.section.split(" › ").at(-1) || "policy";
  return (
    <button
      type="button"
      className="badge policy-link"
      data-testid="policy-link"
      title={`${link.section} (score ${link.score.toFixed(1)}): show this passage of the policy`}
      disabled={!props.onShow}
      onClick={() => props.onShow?.(link, props.by)}
    >
      § {section}
    </button>
  );
}

export function ToolCallCard(props: {
  call: ToolCall;
  result?: ToolMessage | undefined;
  latencyMs?: number | undefined;
  policyLink?: PolicyLinkView | undefined;
  onShowPolicy?: ShowPolicy | undefined;
}) {
  const { call, result } = props;
  const args = JSON.stringify(call.arguments, null, 2);
  const state = !result ? "running" : result.error ? "error" : "ok";
  const command = shellCommand(call);
  return (
    <article
      className={`card tool-card ${state}`}
      data-testid="tool-call-card"
      aria-label={`Tool call ${call.name}`}
    >
      <header>
        <span className="tool-name">{call.name}</span>
        <span className="badge muted">{call.requestor === "user" ? "customer" : "agent"}</span>
        {props.latencyMs !== undefined && <span className="latency">{props.latencyMs.toFixed(1)} ms</span>}
        {props.policyLink && (
          <PolicyLinkBadge link={props.policyLink} by={call.name} onShow={props.onShowPolicy} />
        )}
        {state === "running" && <span className="badge">running…</span>}
        {state === "error" && <span className="badge bad">error</span>}
        {marksOf(result).map((mark, i) => (
          <span key={i} className="badge perturbed" data-testid="perturbation-mark">
            {mark.perturbation}: {mark.effect}
          </span>
        ))}
      </header>
      {command !== undefined ? (
        <ShellTerminal command={command} output={result?.content} error={result?.error} />
      ) : (
        <>
          <details open={args.length < 300}>
            <summary>arguments</summary>
            <pre>{args}</pre>
          </details>
          {result && !result.error && KNOWLEDGE_SEARCH_TOOLS.has(call.name) && (
            <ReturnedDocuments output={result.content ?? ""} />
          )}
          {result && (
            <details
              open={(result.content ?? "").length < 400}
              className={result.error ? "result-error" : "result"}
            >
              <summary>{result.error ? "error" : "result"}</summary>
              <pre>{result.content}</pre>
            </details>
          )}
        </>
      )}
    </article>
  );
}

export function TracePane(props: { events: readonly SequencedEvent[]; onShowPolicy?: ShowPolicy }) {
  const items = useMemo(() => traceItems(props.events), [props.events]);
  const end = useRef<HTMLDivElement>(null);
  // Whether the reader is at the end of the trace (its last card in view): only then does a new card
  // scroll it along; someone reading an earlier card is left where they are.
  const atEnd = useRef(true);
  useEffect(() => {
    const sentinel = end.current;
    if (!sentinel || typeof IntersectionObserver === "undefined") return;
    const observer = new IntersectionObserver(
      ([entry]) => {
        atEnd.current = entry?.isIntersecting ?? true;
      },
      { rootMargin: "0px 0px 120px 0px" },
    );
    observer.observe(sentinel);
    return () => observer.disconnect();
  }, []);
  // Before the browser paints (and before the observer sees the end pushed out of view).
  useLayoutEffect(() => {
    if (atEnd.current) end.current?.scrollIntoView?.({ block: "end" });
  }, [items.length]);
  return (
    <div className="trace" aria-live="polite">
      {items.length === 0 && (
        <p className="muted empty">Tool calls and world changes appear here as they happen.</p>
      )}
      {items.map((item) => {
        switch (item.kind) {
          case "tool":
            return (
              <ToolCallCard
                key={item.key}
                call={item.call}
                result={item.result}
                latencyMs={item.latencyMs}
                policyLink={item.policyLink}
                onShowPolicy={props.onShowPolicy}
              />
            );
          case "refusal":
            return (
              <article key={item.key} className="card refusal-card" data-testid="refusal-card">
                <header>
                  <span className="tool-name">The agent declined</span>
                  <PolicyLinkBadge
                    link={item.policyLink}
                    by="the agent's refusal"
                    onShow={props.onShowPolicy}
                  />
                </header>
                <p className="muted">{item.text.length > 200 ? `${item.text.slice(0, 199)}…` : item.text}</p>
              </article>
            );
          case "world":
            return <WorldChangeCard key={item.key} side={item.side} records={item.records} />;
          case "end":
            return (
              <article key={item.key} className="card end-card" data-testid="end-card">
                <h3>Conversation ended: {item.terminationReason.replace(/_/g, " ")}</h3>
                {item.error && <p className="error-text">{item.error}</p>}
                <p className="muted">
                  {item.durationSeconds.toFixed(1)} s · cost: agent {formatCost(item.agentCost)}
                  {/* A person playing the customer costs nothing to count. */}
                  {item.customerIsPerson ? "" : `, customer ${formatCost(item.userCost)}`}
                </p>
              </article>
            );
          case "reward":
            return (
              <RewardCard
                key={item.key}
                rewardInfo={item.rewardInfo}
                failedChecks={item.failedChecks}
                review={item.review}
                customerIsPerson={item.customerIsPerson}
              />
            );
          case "closed":
            return (
              <article
                key={item.key}
                className="card end-card"
                data-testid="closed-card"
                data-reason={item.reason}
              >
                <h3>
                  {item.reason === "abandoned"
                    ? "Stopped"
                    : item.reason === "interrupted"
                      ? "Interrupted"
                      : "Failed"}
                </h3>
                {item.message && <p>{item.message}</p>}
              </article>
            );
        }
      })}
      <div ref={end} />
    </div>
  );
}
