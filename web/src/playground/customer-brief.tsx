import type { Task } from "../../../src/core/task.js";
import { ScenarioView } from "../components/scenario-view.js";

/** What a person playing the customer needs at hand: who they are, the ids they know, what they want. */
export interface BriefFacts {
  name: string | null;
  ids: string[];
  goal: string | null;
}

const NAME = /\bYou are ([A-Z][\w'-]*(?: [A-Z][\w'-]*)+)/;
/** τ²'s user ids (`emma_kim_9957`), order ids (`#W2378156`), reservation ids (`EHGLP3`). */
const IDS = /\b[a-z]+(?:_[a-z]+)+_\d+\b|#W\d+\b|\b(?=[A-Z0-9]{6}\b)(?=[A-Z0-9]*\d)[A-Z0-9]*[A-Z][A-Z0-9]*\b/g;

/** The brief's facts, from the customer's scenario only (never the task's evaluation criteria). */
export function briefFacts(scenario: Task["user_scenario"]): BriefFacts {
  const { instructions, persona } = scenario;
  const texts =
    typeof instructions === "string"
      ? [instructions, persona ?? ""]
      : [
          instructions.known_info ?? "",
          instructions.reason_for_call,
          instructions.task_instructions,
          persona ?? "",
        ];
  const all = texts.join("\n");
  const ids = [...new Set(all.match(IDS) ?? [])];
  const goal = typeof instructions === "string" ? instructions : instructions.reason_for_call;
  return { name: NAME.exec(all)?.[1] ?? null, ids, goal: goal.trim() === "" ? null : goal.trim() };
}

/** The customer's brief beside the composer while a person plays the customer of a task. */
export function CustomerBrief(props: { task: Task }) {
  const facts = briefFacts(props.task.user_scenario);
  return (
    <details className="customer-brief" open data-testid="customer-brief">
      <summary>
        <strong>Your brief</strong>
        {facts.name && <span data-testid="brief-name"> · {facts.name}</span>}
      </summary>
      {facts.ids.length > 0 && (
        <p className="brief-ids">
          <span className="muted small">You know: </span>
          {facts.ids.map((id) => (
            <code key={id} className="brief-id">
              {id}
            </code>
          ))}
        </p>
      )}
      {facts.goal && (
        <p className="brief-goal" data-testid="brief-goal">
          {facts.goal}
        </p>
      )}
      <details className="brief-more">
        <summary className="small">Everything the customer is told</summary>
        <ScenarioView task={props.task} />
      </details>
    </details>
  );
}
