import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InitialStateSchema, type InitialState } from "../core/task.js";
import { defineDomain } from "./domain.js";
import { copyPyFloatMarks, parseJsonKeepingPyFloats, pyArgStr } from "../python/py-float.js";
import { applyInitialState } from "./set-state.js";
import { World } from "./world.js";

const CounterDbSchema = z.object({ count: z.number(), log: z.array(z.string()) });
type CounterDb = z.infer<typeof CounterDbSchema>;

/** How often each initialization function really ran (a cached initialization runs none). */
let runs = 0;
const counter = defineDomain<CounterDb>({
  name: "counter",
  description: "A counter for initialization tests.",
  agent: {
    db: CounterDbSchema,
    tools: [],
    functions: {
      bump(db, args) {
        runs++;
        db.count += Number(args.by);
        db.log.push(pyArgStr(args, "by"));
        return `bumped by ${pyArgStr(args, "by")}`;
      },
      fail() {
        runs++;
        throw new Error("broken task");
      },
    },
  },
  data: { folder: "counter", db: "db.json", tasks: "tasks.json", policy: "policy.md" },
});
const pristine = { agent: { count: 0, log: [] }, user: undefined };

/** As task files are read: `2.0` keeps its float mark through the zod parse. */
function initialState(json: string): InitialState {
  const raw = parseJsonKeepingPyFloats(json);
  const parsed = InitialStateSchema.parse(raw);
  copyPyFloatMarks(raw, parsed);
  return parsed;
}
const BUMP_TWICE = initialState(
  '{"initialization_actions": [{"env_type": "assistant", "func_name": "bump", "arguments": {"by": 2}},' +
    ' {"env_type": "assistant", "func_name": "bump", "arguments": {"by": 3}}]}',
);

describe("applyInitialState", () => {
  it("initializes once per starting state and initial state, then hands out the same immutable result", () => {
    const base = new World(counter, pristine);
    const first = base.fork();
    runs = 0;
    const steps = applyInitialState(first, BUMP_TWICE);
    expect(runs).toBe(2);
    expect(first.agentDb).toEqual({ count: 5, log: ["2", "3"] });
    expect(steps.map((step) => step.result)).toEqual(["bumped by 2", "bumped by 3"]);

    steps[0]!.result = "changed by the caller";
    // The evaluator copies the task's initial state without its history: same content, same result.
    const second = base.fork();
    const again = applyInitialState(second, { ...BUMP_TWICE, message_history: null });
    expect(runs).toBe(2);
    expect(second.agentDb).toBe(first.agentDb);
    expect(again.map((step) => step.result)).toEqual(["bumped by 2", "bumped by 3"]);
  });

  it("tells 2.0 from 2, and a changed starting state or other options from the cached one", () => {
    const base = new World(counter, pristine);
    applyInitialState(base.fork(), BUMP_TWICE);
    runs = 0;

    const floats = base.fork();
    const floatSteps = applyInitialState(
      floats,
      initialState(JSON.stringify(BUMP_TWICE).replace(":2}", ":2.0}")),
    );
    expect(runs).toBe(2);
    expect(floatSteps[0]!.result).toBe("bumped by 2.0");

    const moved = base.fork();
    applyInitialState(
      moved,
      initialState(
        '{"initialization_actions": [{"env_type": "assistant", "func_name": "bump", "arguments": {"by": 10}}]}',
      ),
    );
    runs = 0;
    applyInitialState(moved, BUMP_TWICE);
    expect(runs).toBe(2);
    expect(moved.agentDb.count).toBe(15);

    runs = 0;
    applyInitialState(base.fork({ validation: "lenient" }), BUMP_TWICE);
    expect(runs).toBe(2);
  });

  it("keeps nothing from an initialization that fails", () => {
    const broken = initialState(
      '{"initialization_actions": [{"env_type": "assistant", "func_name": "fail", "arguments": {}}]}',
    );
    const base = new World(counter, pristine);
    runs = 0;
    expect(() => applyInitialState(base.fork(), broken)).toThrow("broken task");
    expect(() => applyInitialState(base.fork(), broken)).toThrow("broken task");
    expect(runs).toBe(2);
  });
});
