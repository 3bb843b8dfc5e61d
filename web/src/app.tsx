import { lazy, Suspense, useCallback, useEffect, useState } from "react";
import {
  BudgetSchema,
  ServerInfoSchema,
  type Budget,
  type ServerInfo,
} from "../../src/server/api-schemas.js";
import { answer, api, describeError, untilReachable } from "./api.js";
import { NotFound } from "./components/not-found.js";
import { formatCost, formatDate } from "./format.js";
import { Playground } from "./playground/playground.js";
import { href, useRoute, type Route } from "./router.js";
import { staticExport } from "./static-export.js";

// The explorer's pages (and their charts) load on first visit: the playground paints without them.
const ComparePage = lazy(() =>
  import("./explorer/compare-page.js").then((m) => ({ default: m.ComparePage })),
);
const RunPage = lazy(() => import("./explorer/run-page.js").then((m) => ({ default: m.RunPage })));
const RunsPage = lazy(() => import("./explorer/runs-page.js").then((m) => ({ default: m.RunsPage })));
const SimulationPage = lazy(() =>
  import("./explorer/simulation-page.js").then((m) => ({ default: m.SimulationPage })),
);
const VoicePlayground = lazy(() =>
  import("./playground/voice/voice-playground.js").then((m) => ({ default: m.VoicePlayground })),
);
const VoiceRunPage = lazy(() =>
  import("./explorer/voice-run-page.js").then((m) => ({ default: m.VoiceRunPage })),
);
const VoiceCallPage = lazy(() =>
  import("./explorer/voice-call-page.js").then((m) => ({ default: m.VoiceCallPage })),
);
const VoiceComparePage = lazy(() =>
  import("./explorer/voice-compare-page.js").then((m) => ({ default: m.VoiceComparePage })),
);
const TrialsPage = lazy(() => import("./explorer/trials-page.js").then((m) => ({ default: m.TrialsPage })));

/** The daily budget of a public deployment, always visible while a cap is set. */
function BudgetBanner(props: { budget: Budget }) {
  const { budget } = props;
  if (budget.capUsd === null) return null;
  const resets = new Date(budget.resetsAt).toISOString().slice(11, 16);
  return (
    <div
      className={`budget-banner${budget.exhausted ? " exhausted" : ""}`}
      role="status"
      data-testid="budget-banner"
    >
      {budget.exhausted ? (
        <>
          <strong>Today's budget is used up</strong> ({formatCost(budget.spentUsd)} of{" "}
          {formatCost(budget.capUsd)}): new conversations are paused until {resets} UTC.
        </>
      ) : (
        <>
          Today's budget: {formatCost(budget.spentUsd)} of {formatCost(budget.capUsd)} used · resets at{" "}
          {resets} UTC
        </>
      )}
      <span className="meter" aria-hidden="true">
        <span
          style={{ width: `${Math.min(100, (budget.spentUsd / Math.max(budget.capUsd, 1e-9)) * 100)}%` }}
        />
      </span>
    </div>
  );
}

/**
 * The page a static export shows for `route`: its run's pages as linked; the run page for what it
 * does not hold (the playground, the runs list, comparisons), which need a server.
 */
function staticRoute(route: Route, runId: string): Route {
  return route.page === "run" ||
    route.page === "simulation" ||
    route.page === "trials" ||
    route.page === "not-found"
    ? route
    : { page: "run", runId };
}

/** The header of a static export: its run, and what it is. */
function StaticHeader(props: { runId: string; exportedAt: string }) {
  return (
    <header className="top">
      <a className="brand" href={href({ page: "run", runId: props.runId })}>
        pass<sup>k</sup>
      </a>
      <span
        className="badge muted"
        data-testid="static-export"
        title={`Exported ${props.exportedAt} with passk export --format html: read-only, no server`}
      >
        static export
      </span>
      <span className="muted small">exported {formatDate(props.exportedAt)} UTC · read-only</span>
    </header>
  );
}

export function App() {
  const hashRoute = useRoute();
  const route = staticExport ? staticRoute(hashRoute, staticExport.runId) : hashRoute;
  const [info, setInfo] = useState<ServerInfo | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (staticExport) return; // no server: no playground, no budget
    const abort = new AbortController();
    untilReachable(
      () => answer(api.info.$get(), ServerInfoSchema),
      abort.signal,
      (e) => setError(describeError(e)),
    )
      .then((loaded) => {
        setInfo(loaded);
        setError(null);
      })
      .catch((e: unknown) => {
        if (!abort.signal.aborted) setError(describeError(e));
      });
    return () => abort.abort();
  }, []);
  const refreshBudget = useCallback(() => {
    answer(api.budget.$get(), BudgetSchema)
      .then((budget) => setInfo((current) => (current ? { ...current, budget } : current)))
      .catch(() => {});
  }, []);
  useEffect(() => {
    if (staticExport) return;
    const timer = setInterval(refreshBudget, 30_000);
    return () => clearInterval(timer);
  }, [refreshBudget]);

  const section = route.page === "playground" || route.page === "voice" ? route.page : "explorer";
  return (
    <>
      <a
        className="skip-link"
        href="#main"
        onClick={(event) => {
          // The hash is the router's: move focus without navigating.
          event.preventDefault();
          document.getElementById("main")?.focus();
        }}
      >
        Skip to content
      </a>
      {staticExport ? (
        <StaticHeader runId={staticExport.runId} exportedAt={staticExport.exportedAt} />
      ) : (
        <header className="top">
          <a className="brand" href={href({ page: "playground" })}>
            pass<sup>k</sup>
          </a>
          <nav aria-label="Sections">
            <a
              href={href({ page: "playground" })}
              aria-current={section === "playground" ? "page" : undefined}
            >
              Playground
            </a>
            <a href={href({ page: "voice" })} aria-current={section === "voice" ? "page" : undefined}>
              Voice
            </a>
            <a href={href({ page: "runs" })} aria-current={section === "explorer" ? "page" : undefined}>
              Runs
            </a>
          </nav>
        </header>
      )}
      {info && <BudgetBanner budget={info.budget} />}
      <main id="main" tabIndex={-1}>
        {error && (
          <p className="page error-text" role="alert">
            Cannot reach the passk server: {error}
          </p>
        )}
        {route.page === "playground" && info && (
          <Playground info={info} route={route} onConversationEnd={refreshBudget} />
        )}
        <Suspense fallback={<p className="page muted">Loading…</p>}>
          {route.page === "voice" && <VoicePlayground />}
          {route.page === "runs" && <RunsPage />}
          {route.page === "run" && <RunPage runId={route.runId} />}
          {route.page === "simulation" && (
            <SimulationPage
              runId={route.runId}
              domain={route.domain}
              taskId={route.taskId}
              trial={route.trial}
              turn={route.turn}
            />
          )}
          {route.page === "compare" && <ComparePage a={route.a} b={route.b} />}
          {route.page === "trials" && <TrialsPage route={route} />}
          {route.page === "voice-run" && <VoiceRunPage runId={route.runId} />}
          {route.page === "voice-call" && <VoiceCallPage runId={route.runId} callId={route.callId} />}
          {route.page === "voice-compare" && <VoiceComparePage a={route.a} b={route.b} />}
        </Suspense>
        {route.page === "not-found" && (
          <NotFound title="No such page" message={`There is no page at #/${route.path}.`} />
        )}
      </main>
    </>
  );
}
