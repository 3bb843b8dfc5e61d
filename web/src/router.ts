import { useEffect, useState } from "react";

/** The app's pages, read from the URL hash (`#/runs/ID`), so any page can be linked and reloaded. */
export type Route =
  | { page: "playground" }
  | { page: "runs" }
  | { page: "run"; runId: string }
  | { page: "simulation"; runId: string; domain: string; taskId: string; trial: number }
  | { page: "compare"; a: string; b: string };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const [first, second, third, fourth, fifth, sixth] = parts;
  if (first === "runs" && second && third === "simulations" && fourth && fifth && sixth !== undefined) {
    return { page: "simulation", runId: second, domain: fourth, taskId: fifth, trial: Number(sixth) };
  }
  if (first === "runs" && second) return { page: "run", runId: second };
  if (first === "runs") return { page: "runs" };
  if (first === "compare" && second && third) return { page: "compare", a: second, b: third };
  return { page: "playground" };
}

export function href(route: Route): string {
  const e = encodeURIComponent;
  switch (route.page) {
    case "playground":
      return "#/";
    case "runs":
      return "#/runs";
    case "run":
      return `#/runs/${e(route.runId)}`;
    case "simulation":
      return `#/runs/${e(route.runId)}/simulations/${e(route.domain)}/${e(route.taskId)}/${route.trial}`;
    case "compare":
      return `#/compare/${e(route.a)}/${e(route.b)}`;
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
