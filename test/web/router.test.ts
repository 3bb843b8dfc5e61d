import { describe, expect, it } from "vitest";
import { href, parseRoute, type Route } from "../../web/src/route.js";

// Links to a turn of a simulation: `#/runs/<run>/simulations/<domain>/<task>/<trial>/turn/<n>`.

describe("turn links", () => {
  it("parses a turn link and writes it back unchanged", () => {
    const hash = "#/runs/run%201/simulations/telecom/%5Bmobile%5D%20task/2/turn/17";
    const route = parseRoute(hash);
    expect(route).toEqual({
      page: "simulation",
      runId: "run 1",
      domain: "telecom",
      taskId: "[mobile] task",
      trial: 2,
      turn: 17,
    });
    expect(href(route)).toBe(hash);
  });

  it("round-trips simulation routes with and without a turn", () => {
    const routes: Route[] = [
      { page: "simulation", runId: "r/1", domain: "airline", taskId: "0", trial: 0 },
      { page: "simulation", runId: "r", domain: "retail", taskId: "a b", trial: 3, turn: 0 },
    ];
    for (const route of routes) expect(parseRoute(href(route))).toEqual(route);
  });

  it("rejects malformed turn links", () => {
    for (const hash of [
      "#/runs/r/simulations/airline/0/1/turn",
      "#/runs/r/simulations/airline/0/1/turn/x",
      "#/runs/r/simulations/airline/0/1/turn/-1",
      "#/runs/r/simulations/airline/0/1/step/3",
      "#/runs/r/simulations/airline/0/1/turn/3/extra",
    ])
      expect(parseRoute(hash).page).toBe("not-found");
  });
});
