/** The app's pages, read from the URL hash (`#/runs/ID`), so any page can be linked and reloaded. */
export type Route =
  | {
      page: "playground";
      /** A shared link's domain, task (`-` for none) and conversation. */
      domain?: string;
      taskId?: string;
      conversationId?: string;
    }
  | { page: "voice" }
  | { page: "runs" }
  | { page: "run"; runId: string }
  | {
      page: "simulation";
      runId: string;
      domain: string;
      taskId: string;
      trial: number;
      /** A linked turn (`…/turn/<n>`, the message's index): scrolled to and highlighted. */
      turn?: number;
    }
  | { page: "compare"; a: string; b: string }
  /** A voice run read from a folder (`passk serve --voice-runs`), one of its calls, two side by side. */
  | { page: "voice-run"; runId: string }
  | { page: "voice-call"; runId: string; callId: string }
  | { page: "voice-compare"; a: string; b: string }
  | {
      page: "trials";
      domain: string;
      taskId: string;
      a: { runId: string; trial: number };
      b: { runId: string; trial: number };
    }
  | { page: "not-found"; path: string };

const trialNumber = (text: string | undefined): number | undefined =>
  text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, "");
  let parts: string[];
  try {
    parts = path === "" ? [] : path.split("/").map(decodeURIComponent);
  } catch {
    return { page: "not-found", path };
  }
  const [first, second, third, fourth, fifth, sixth, seventh, eighth] = parts;
  if (first === undefined) return { page: "playground" };
  if (first === "play" && parts.length <= 4) {
    return {
      page: "playground",
      ...(second ? { domain: second } : {}),
      ...(third && third !== "-" ? { taskId: third } : {}),
      ...(fourth ? { conversationId: fourth } : {}),
    };
  }
  if (first === "voice" && parts.length === 1) return { page: "voice" };
  if (first === "runs") {
    if (parts.length === 1) return { page: "runs" };
    if (second && parts.length === 2) return { page: "run", runId: second };
    const trial = trialNumber(sixth);
    if (second && third === "simulations" && fourth && fifth && trial !== undefined && parts.length === 6)
      return { page: "simulation", runId: second, domain: fourth, taskId: fifth, trial };
    const turn = trialNumber(eighth);
    if (second && third === "simulations" && fourth && fifth && trial !== undefined)
      if (seventh === "turn" && turn !== undefined && parts.length === 8)
        return { page: "simulation", runId: second, domain: fourth, taskId: fifth, trial, turn };
  }
  if (first === "voice-runs" && second && parts.length === 2) return { page: "voice-run", runId: second };
  if (first === "voice-runs" && second && third === "calls" && fourth && parts.length === 4)
    return { page: "voice-call", runId: second, callId: fourth };
  if (first === "voice-compare" && second && third && parts.length === 3)
    return { page: "voice-compare", a: second, b: third };
  if (first === "compare" && second && third && parts.length === 3)
    return { page: "compare", a: second, b: third };
  // #/trials/<domain>/<task>/<runA>/<trialA>/<runB>/<trialB>
  if (first === "trials" && parts.length === 7 && second && third && fourth && sixth) {
    const trialA = trialNumber(fifth);
    const trialB = trialNumber(seventh);
    if (trialA !== undefined && trialB !== undefined)
      return {
        page: "trials",
        domain: second,
        taskId: third,
        a: { runId: fourth, trial: trialA },
        b: { runId: sixth, trial: trialB },
      };
  }
  return { page: "not-found", path };
}

export function href(route: Route): string {
  const e = encodeURIComponent;
  switch (route.page) {
    case "playground":
      if (!route.domain) return "#/";
      return `#/play/${e(route.domain)}${route.taskId || route.conversationId ? `/${route.taskId ? e(route.taskId) : "-"}` : ""}${route.conversationId ? `/${e(route.conversationId)}` : ""}`;
    case "voice":
      return "#/voice";
    case "runs":
      return "#/runs";
    case "run":
      return `#/runs/${e(route.runId)}`;
    case "simulation":
      return `#/runs/${e(route.runId)}/simulations/${e(route.domain)}/${e(route.taskId)}/${route.trial}${route.turn === undefined ? "" : `/turn/${route.turn}`}`;
    case "compare":
      return `#/compare/${e(route.a)}/${e(route.b)}`;
    case "voice-run":
      return `#/voice-runs/${e(route.runId)}`;
    case "voice-call":
      return `#/voice-runs/${e(route.runId)}/calls/${e(route.callId)}`;
    case "voice-compare":
      return `#/voice-compare/${e(route.a)}/${e(route.b)}`;
    case "trials":
      return `#/trials/${e(route.domain)}/${e(route.taskId)}/${e(route.a.runId)}/${route.a.trial}/${e(route.b.runId)}/${route.b.trial}`;
    case "not-found":
      return `#/${route.path}`;
  }
}
