import type { Command } from "commander";
import { runConversation } from "../../runner/conversation-job.js";
import { scenarioText } from "../../users/user-prompt.js";
import { terminalUser } from "../../users/terminal-user.js";
import {
  loadDomain,
  println,
  withDataOption,
  withRetrievalConfigOption,
  type CliContext,
} from "../context.js";
import {
  participantsFromFlags,
  SCRIPTED_DEMO_BANNER,
  withModelFlags,
  type ModelFlags,
} from "../model-flags.js";
import { describeEvent, describeReward } from "../print-events.js";
import { startCliTracing, withOtelOption } from "../otel-option.js";
import type { Tracing } from "../../observability/start-tracing.js";
import type { DomainData } from "../../formats/tau2/domain-data.js";
import type { Task } from "../../core/task.js";
import { createPerturbationRegistry } from "../../perturbations/registry.js";
import { loadPerturbations } from "../domain-modules.js";
import { perturbationSpecs } from "./run-resolve.js";
import { ConfigError } from "../../core/errors.js";
import { withVoiceOptions } from "./voice-run.js";
import { voiceSimulateCommand, type VoiceSimulateFlags } from "./voice-simulate.js";

interface SimulateFlags extends ModelFlags {
  domain: string;
  task: string;
  data?: string;
  retrievalConfig?: string;
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

async function converse(flags: SimulateFlags, context: CliContext, human: boolean): Promise<void> {
  const data = loadDomain(context, flags.domain, flags);
  data.assertConversable();
  const task = data.task(flags.task);
  const tracing = await startCliTracing(flags, context);
  try {
    await converseTraced(flags, context, human, data, task, tracing);
  } finally {
    await tracing?.shutdown();
  }
}

async function converseTraced(
  flags: SimulateFlags,
  context: CliContext,
  human: boolean,
  data: DomainData,
  task: Task,
  tracing: Tracing | undefined,
): Promise<void> {
  const participants = participantsFromFlags(flags, context, data.dataDir, [data.domain], {
    ...(tracing ? { observer: tracing.modelCalls } : {}),
    noCustomer: human || (flags.solo ?? false),
  });
  if (participants.scriptedDemo && !human) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
  if (human) {
    println(context, "You are the customer. Your situation (hidden from the agent):");
    println(context, scenarioText(task.user_scenario).replace(/^/gm, "  "));
    println(context, "Type messages; /tool <name> <json> uses your own tools; /stop ends the call.\n");
  }
  const user = human ? terminalUser(process.stdin, context.stdout) : participants.user;
  // `--perturb`: the conversation meets the perturbations as a run's would (seeded by task and --seed).
  if (flags.perturbationModule && flags.perturbationModule.length > 0)
    await loadPerturbations(context, flags.perturbationModule);
  const registry = context.perturbations ?? createPerturbationRegistry();
  const perturbations = perturbationSpecs(flags.perturb ?? [], registry).map((spec) =>
    registry.resolve(spec),
  );
  const trace = tracing?.conversation({
    domain: data.domain.name,
    taskId: task.id,
    trial: 0,
    seed: Number(flags.seed),
    agentLlm: flags.agentLlm,
    ...(flags.solo ? {} : { userLlm: human ? "human" : (flags.userLlm ?? "scripted:gold") }),
    protocol: participants.protocol.name,
  });
  const converseAndGrade = () =>
    runConversation({
      data,
      task,
      agent: participants.agent,
      user,
      ...(participants.judge ? { judge: participants.judge } : {}),
      ...(perturbations.length > 0 ? { perturbations } : {}),
      solo: flags.solo ?? false,
      protocol: participants.protocol,
      ...(participants.toolOverrides ? { toolOverrides: participants.toolOverrides } : {}),
      maxSteps: Number(flags.maxSteps),
      maxErrors: Number(flags.maxErrors),
      seed: Number(flags.seed),
      onEvent: (event) => {
        trace?.onEvent(event);
        if (flags.json) return;
        if (human && event.type === "message" && event.message.role === "user") return; // the person just typed it
        const line = describeEvent(event);
        if (line) println(context, line);
      },
    });
  let run: Awaited<ReturnType<typeof converseAndGrade>>;
  try {
    run = await (trace ? trace.run(converseAndGrade) : converseAndGrade());
  } catch (error) {
    trace?.end({ error });
    throw error;
  }
  trace?.end({ run });
  const reward = run.reward_info;
  participants.cache?.close();
  if (flags.json) {
    println(
      context,
      JSON.stringify({ ...run, ...(participants.scriptedDemo ? { scripted_demo: true } : {}) }, null, 2),
    );
  } else if (run.termination_reason !== "infrastructure_error") {
    println(context, describeReward(reward));
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
