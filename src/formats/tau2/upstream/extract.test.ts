import { describe, expect, it } from "vitest";
import { extractPromptTemplates } from "./extract-prompts.js";
import {
  extractDoneTool,
  extractToolkit,
  extractToolkitWithDiscoverable,
  toolDescription,
} from "./extract-tools.js";
import { parseDocstring } from "../../../python/py-docstring.js";
import { PythonSourceError } from "../../../python/py-source/errors.js";

const kit = `
Mode = Literal["fast", "slow"]


class Kit(ToolKitBase):
    @is_tool(ToolType.READ)
    def find(self, query: str, mode: Mode = "fast") -> str:
        """Find things.

        Args:
            query: What to look for.
        """

    def not_a_tool(self) -> None:
        """Helper."""

    @is_discoverable_tool(ToolType.WRITE)
    def hidden_1234(self, amount) -> str:
        """Hidden tool.

        Args:
            amount (float): How much.
        """

    @is_tool(ToolType.GENERIC, mutates_state=True)
    def hand_over(self) -> str:
        pass
`;

describe("extractToolkit", () => {
  it("reads decorated methods in order, with types, descriptions and schemas", () => {
    const { tools, discoverable } = extractToolkitWithDiscoverable(kit, "kit.py", { className: "Kit" });
    expect(tools.map((t) => [t.name, t.toolType, t.mutatesState, t.description])).toEqual([
      ["find", "read", false, "Find things."],
      ["hand_over", "generic", true, "hand_over"],
    ]);
    expect(JSON.stringify(tools[0]!.parameters)).toBe(
      JSON.stringify({
        properties: {
          query: { description: "What to look for.", title: "Query", type: "string" },
          mode: { default: "fast", enum: ["fast", "slow"], title: "Mode", type: "string" },
        },
        required: ["query"],
        title: "parameters",
        type: "object",
      }),
    );
    // An unannotated parameter takes its type from the docstring.
    expect(discoverable.map((t) => [t.name, t.toolType, t.mutatesState])).toEqual([
      ["hidden_1234", "write", true],
    ]);
    expect(discoverable[0]!.parameters.properties).toEqual({
      amount: { description: "How much.", title: "Amount", type: "number" },
    });
  });

  it("names the file and the class or tool in errors", () => {
    expect(() => extractToolkit(kit, "kit.py", { className: "Missing" })).toThrow(
      "kit.py: class Missing not found",
    );
    const bad = kit.replace('mode: Mode = "fast"', "mode: Unknown");
    expect(() => extractToolkit(bad, "kit.py", { className: "Kit" })).toThrow(
      /kit\.py: find: unknown type 'Unknown'/,
    );
  });
});

const agentModule = `
AGENT_INSTRUCTION = """
Help.
""".strip()
SYSTEM_PROMPT = "<i>{agent_instruction}</i>"
AGENT_GT_INSTRUCTION = "gt"
SYSTEM_PROMPT_GT = "gt {x}"
AGENT_SOLO_INSTRUCTION = "solo"
SYSTEM_PROMPT_SOLO = "solo {x}"


class LLMSoloAgent(Base):
    STOP_FUNCTION_NAME = "finish"
    TRANSFER_TOOL_NAME = "transfer"
    STOP_TOKEN = "###END###"

    def add_stop_tool(self) -> None:
        def finish() -> str:
            """Stop here."""
            return self.STOP_TOKEN

        self.tools.append(as_tool(finish))
`;
const userModule = 'SYSTEM_PROMPT = """\n{guidelines}\n""".strip()\n';

describe("extractPromptTemplates and extractDoneTool", () => {
  it("read the module and class constants", () => {
    const templates = extractPromptTemplates(agentModule, userModule);
    expect(templates.agent.AGENT_INSTRUCTION).toBe("Help.");
    expect(templates.agent.solo_stop_function_name).toBe("finish");
    expect(templates.agent.solo_stop_token).toBe("###END###");
    expect(templates.user.SYSTEM_PROMPT).toBe("{guidelines}");
    const done = extractDoneTool(agentModule);
    expect([done.name, done.description]).toEqual(["finish", "Stop here."]);
  });

  it("a missing constant is an error naming the file and the constant", () => {
    const without = agentModule.replace('SYSTEM_PROMPT_GT = "gt {x}"\n', "");
    let error: unknown;
    try {
      extractPromptTemplates(without, userModule);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PythonSourceError);
    expect((error as PythonSourceError).message).toBe(
      "src/tau2/agent/llm_agent.py: the constant SYSTEM_PROMPT_GT was not found",
    );
    expect((error as PythonSourceError).item).toBe("SYSTEM_PROMPT_GT");
    expect(() =>
      extractPromptTemplates(agentModule.replace('    STOP_TOKEN = "###END###"\n', ""), userModule),
    ).toThrow("src/tau2/agent/llm_agent.py: the constant LLMSoloAgent.STOP_TOKEN was not found");
    expect(() => extractPromptTemplates(agentModule, "OTHER = 1\n")).toThrow(
      "src/tau2/user/user_simulator.py: the constant SYSTEM_PROMPT was not found",
    );
  });
});

describe("toolDescription (τ²'s Tool._get_description)", () => {
  it("the short description, a blank line and the long one", () => {
    const doc = parseDocstring(
      "Fetch the widget.\n\n    Longer story\n      with an indented line.\n\n    Args:\n        a: A.\n",
    );
    expect(toolDescription(doc, "fetch")).toBe("Fetch the widget.\n\nLonger story\n  with an indented line.");
    expect(toolDescription(parseDocstring("\n    One line.\n    Second line.\n    "), "x")).toBe(
      "One line.\n\nSecond line.",
    );
  });

  it("no docstring: the tool's name; a short description alone", () => {
    expect(toolDescription(parseDocstring(undefined), "tool_name")).toBe("tool_name");
    expect(toolDescription(parseDocstring("Only short.\n\n"), "t")).toBe("Only short.");
  });
});
