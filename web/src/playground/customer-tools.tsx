import { useState, type FormEvent } from "react";
import type { ToolSummary } from "../../../src/server/api-schemas.js";

interface Property {
  name: string;
  type: string;
  required: boolean;
}

function properties(tool: ToolSummary): Property[] {
  const props = (tool.parameters["properties"] ?? {}) as Record<string, { type?: unknown }>;
  const required = new Set(
    Array.isArray(tool.parameters["required"]) ? (tool.parameters["required"] as string[]) : [],
  );
  return Object.entries(props).map(([name, schema]) => ({
    name,
    type: typeof schema.type === "string" ? schema.type : "string",
    required: required.has(name),
  }));
}

/** A value typed in a form field, read as its schema's type (numbers and booleans as JSON). */
function parseValue(text: string, type: string): unknown {
  if (type === "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function ToolForm(props: {
  tool: ToolSummary;
  disabled: boolean;
  onUse: (args: Record<string, unknown>) => void;
}) {
  const fields = properties(props.tool);
  const [values, setValues] = useState<Record<string, string>>({});
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const args: Record<string, unknown> = {};
    for (const field of fields) {
      const text = values[field.name] ?? "";
      if (text !== "" || field.required) args[field.name] = parseValue(text, field.type);
    }
    props.onUse(args);
  };
  return (
    <form className="customer-tool" onSubmit={submit}>
      <button type="submit" disabled={props.disabled} title={props.tool.description}>
        {props.tool.name.replace(/_/g, " ")}
      </button>
      {fields.map((field) => (
        <label key={field.name} className="tool-arg">
          <span>
            {field.name}
            {field.required ? "" : " (optional)"}
          </span>
          <input
            type="text"
            value={values[field.name] ?? ""}
            onChange={(e) => setValues({ ...values, [field.name]: e.target.value })}
            disabled={props.disabled}
          />
        </label>
      ))}
    </form>
  );
}

/** The person's own tools (telecom: their phone), usable on their turn like the simulated customer's. */
export function CustomerTools(props: {
  tools: readonly ToolSummary[];
  enabled: boolean;
  onUse: (name: string, args: Record<string, unknown>) => void;
}) {
  if (props.tools.length === 0) return null;
  return (
    <details className="customer-tools">
      <summary>Your tools ({props.tools.length}) — act on your side, e.g. your phone</summary>
      <div className="customer-tool-list">
        {props.tools.map((tool) => (
          <ToolForm
            key={tool.name}
            tool={tool}
            disabled={!props.enabled}
            onUse={(args) => props.onUse(tool.name, args)}
          />
        ))}
      </div>
    </details>
  );
}
