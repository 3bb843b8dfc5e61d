import type { Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import {
  simulateConversation,
  type SimulatedConversation,
  type SimulationSpec,
} from "../../runner/simulate-conversation.js";
import { scenarioText } from "../../users/user-prompt.js";
import { terminalUser } from "../../users/terminal-user.js";
import { assemblyOf, println, wholeNumber, withDataOption, type CliContext } from "../context.js";
import { retrievalOfFlags, withRetrievalConfigOption, type DomainFlags } from "../domain-flags.js";
import { loadPerturbations } from "../domain-modules.js";
import {
  callSettingsOfFlags,
  modelSpecOfFlags,
  SCRIPTED_DEMO_BANNER,
  withModelFlags,
  type ModelFlags,
} from "../model-flags.js";
import { startCliTracing, withOtelOption } from "../otel-option.js";
import { describeEvent, describeReward } from "../print-events.js";
import { withVoiceOptions } from "./voice-run.js";
import { voiceSimulateCommand, type VoiceSimulateFlags } from "./voice-simulate.js";

interface SimulateFlags extends ModelFlags, DomainFlags {
  domain: string;
  task: string;
  solo?: boolean;
  maxSteps: string;
  maxErrors: string;
  seed: string;
  json?: boolean;
  otel?: string | boolean;
  /** `--perturb SPEC` and `--perturbation-module FILE` (simulate only), repeated. */
  perturb?: string[];
  perturbationModule?: string[];
}

function withConversationFlags(command: Command): Command {
  return withOtelOption(withRetrievalConfigOption(withDataOption(command)))
    .requiredOption("--domain <name>", "domain")
    .requiredOption("--task <id>", "task id")
    .option("--max-steps <n>", "stop after this many steps", "200")
    .option("--max-errors <n>", "stop after this many tool errors", "10")
    .option("--seed <n>", "seed passed to the models", "300");
}

/** The flags as the library's simulation spec. */
function simulationSpecOfFlags(flags: SimulateFlags, human: boolean): SimulationSpec {
  return {
    ...callSettingsOfFlags(flags),
    ...retrievalOfFlags(flags),
    domain: flags.domain,
    taskId: flags.task,
    ...(flags.data !== undefined ? { dataDir: flags.data } : {}),
    agent: modelSpecOfFlags(flags, "agent", flags.agentLlm),
    ...(flags.userLlm !== undefined && !human
      ? { user: modelSpecOfFlags(flags, "user", flags.userLlm) }
      : {}),
    solo: flags.solo ?? false,
    ...(flags.perturb?.length ? { perturbations: flags.perturb } : {}),
    maxSteps: wholeNumber("--max-steps", flags.maxSteps),
    maxErrors: wholeNumber("--max-errors", flags.maxErrors),
    seed: wholeNumber("--seed", flags.seed),
  };
}

/** One conversation through the library, printed live (`chat`: the person at the terminal is the customer). */
async function converse(flags: SimulateFlags, context: CliContext, human: boolean): Promise<void> {
  const spec = simulationSpecOfFlags(flags, human);
  if (flags.perturbationModule && flags.perturbationModule.length > 0)
    await loadPerturbations(context, flags.perturbationModule);
  const tracing = await startCliTracing(flags, context);
  try {
    const { simulation, scriptedDemo } = await simulateConversation(spec, {
      ...assemblyOf(context),
      ...(human ? { person: terminalUser(process.stdin, context.stdout) } : {}),
      ...(tracing ? { tracing } : {}),
      onStart: ({ task, scriptedDemo }) => {
        if (scriptedDemo && !human) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
        if (!human) return;
        println(context, "You are the customer. Your situation (hidden from the agent):");
        println(context, scenarioText(task.user_scenario).replace(/^/gm, "  "));
        println(context, "Type messages; /tool <name> <json> uses your own tools; /stop ends the call.\n");
      },
      onEvent: (event) => {
        if (flags.json) return;
        if (human && event.type === "message" && event.message.role === "user") return; // the person just typed it
        const line = describeEvent(event);
        if (line) println(context, line);
      },
    });
    printSimulation(context, simulation, { json: flags.json ?? false, scriptedDemo });
  } finally {
    await tracing?.shutdown();
  }
}

/** The graded conversation (JSON, or its reward); an infrastructure error is no grade: exit code 3. */
function printSimulation(
  context: CliContext,
  run: SimulatedConversation["simulation"],
  options: { json: boolean; scriptedDemo: boolean },
): void {
  if (options.json) {
    println(
      context,
      JSON.stringify({ ...run, ...(options.scriptedDemo ? { scripted_demo: true } : {}) }, null, 2),
    );
  } else if (run.termination_reason !== "infrastructure_error") {
    println(context, describeReward(run.reward_info));
  }
  if (run.termination_reason === "infrastructure_error") {
    // Not the agent's score: the conversation could not be completed (a provider, the customer, the network).
    const error = (run.info as { error?: unknown } | null | undefined)?.error;
    context.stderr.write(
      `error: the conversation ended in an infrastructure error${error === undefined ? "" : ` (${String(error)})`}, ` +
        "so it is not graded as the agent's; fix the cause (see the error) and run it again\n",
    );
    process.exitCode = 3;
  }
}

export function registerSimulate(program: Command, context: CliContext): void {
  const simulate = withVoiceOptions(
    withModelFlags(
      withConversationFlags(
        program
          .command("simulate")
          .description(
            "Run one conversation (agent vs simulated customer), print it live, then grade it; --voice: one phone call",
          ),
      ),
    ),
  )
    .option(
      "--solo",
      "solo mode: the agent works from the task's ticket, with the customer's tools, and calls done",
    )
    .option("--json", "print the graded simulation as JSON instead of the live transcript")
    .option(
      "--perturb <spec>",
      "perturb the conversation as `run --perturb` does, e.g. tool-faults:rate=0.5 (repeatable; see README, Robustness)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      "--perturbation-module <file>",
      "a module exporting your own perturbations (definePerturbation), for --perturb to name (repeatable)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      "--save-to <dir>",
      "with --voice: keep the call as a one-call voice run directory (results.json, simulations/, both.wav and label tracks)",
    );
  // A voice call's agent is --voice-agent (--agent-llm only for a cascade): checked by hand.
  simulate.options.find((o) => o.long === "--agent-llm")?.makeOptionMandatory(false);
  simulate.action(async (flags: SimulateFlags & VoiceSimulateFlags) => {
    if (flags.voice) {
      if (flags.solo || (flags.perturb ?? []).length > 0)
        throw new ConfigError(
          "--solo and --perturb are for text conversations; a voice call's conditions are --speech-complexity",
        );
      process.exitCode = await voiceSimulateCommand(flags, context);
      return;
    }
    if (!flags.agentLlm) throw new ConfigError("required option '--agent-llm <model>' not specified");
    if (flags.saveTo)
      throw new ConfigError(
        "--save-to keeps a voice call (with --voice); a text conversation prints with --json",
      );
    await converse(flags, context, false);
  });

  withModelFlags(
    withConversationFlags(
      program.command("chat").description("Play the customer yourself against the agent, in the terminal"),
    ),
    { user: false },
  ).action((flags: SimulateFlags) => converse(flags, context, true));
}
