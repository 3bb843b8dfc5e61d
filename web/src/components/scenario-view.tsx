import type { Task } from "../../../src/core/task.js";
import { Markdown } from "./markdown.js";

/** The simulated customer's brief: who they are and what they want, as the task gives it. */
export function ScenarioView(props: { task: Task }) {
  const { persona, instructions } = props.task.user_scenario;
  const parts: Array<[string, string]> =
    typeof instructions === "string"
      ? [["Instructions", instructions]]
      : (
          [
            ["Reason for calling", instructions.reason_for_call],
            ["What they know", instructions.known_info],
            ["What they do not know", instructions.unknown_info],
            ["How they behave", instructions.task_instructions],
          ] as Array<[string, string | null | undefined]>
        ).filter((part): part is [string, string] => typeof part[1] === "string" && part[1].trim() !== "");
  return (
    <div className="scenario-view">
      {persona && persona.trim() !== "" && (
        <section>
          <h4>Persona</h4>
          <Markdown text={persona.trim()} />
        </section>
      )}
      {parts.map(([title, text]) => (
        <section key={title}>
          <h4>{title}</h4>
          <Markdown text={text.trim()} />
        </section>
      ))}
    </div>
  );
}
