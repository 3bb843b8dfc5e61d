import type { ToolCall } from "../../../src/core/message.js";

/** The command of a call to banking_knowledge's sandboxed `shell` tool, or undefined for any other call. */
export function shellCommand(call: ToolCall): string | undefined {
  const command = call.arguments["command"];
  return call.name === "shell" && typeof command === "string" ? command : undefined;
}

/** The tool's wording for a failed command (see src/knowledge/shell-sandbox.ts): its exit-code line. */
const EXIT_LINE = /^(Error \(exit code \d+\)|Command failed with exit code \d+)/;

/**
 * A `shell` call as a terminal: `$ command`, then what the tool answered (whitespace kept), the
 * exit-code line marked as such; no output yet while the command runs.
 */
export function ShellTerminal(props: {
  command: string;
  output?: string | null | undefined;
  error?: boolean;
}) {
  const output = props.output ?? undefined;
  const failed = props.error === true || (output !== undefined && EXIT_LINE.test(output));
  return (
    <div className={`shell-terminal${failed ? " failed" : ""}`} data-testid="shell-terminal">
      <pre className="shell-command">
        <span className="shell-prompt" aria-hidden="true">
          ${" "}
        </span>
        {props.command}
      </pre>
      {output !== undefined && <pre className="shell-output">{output}</pre>}
    </div>
  );
}
