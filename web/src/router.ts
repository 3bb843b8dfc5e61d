import { useEffect, useState } from "react";
import { href, parseRoute, type Route } from "./route.js";

export { href, parseRoute, type Route };

/** Go to `route` (a new history entry), or replace the current entry (`replace`: no Back step). */
export function navigate(route: Route, options: { replace?: boolean } = {}): void {
  const target = href(route);
  if (window.location.hash === target) return;
  if (options.replace) {
    window.history.replaceState(window.history.state, "", target);
    window.dispatchEvent(new HashChangeEvent("hashchange"));
  } else {
    window.location.hash = target;
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
