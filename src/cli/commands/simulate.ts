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
}

function withConversationFlags(command: Command): Command {
  return withRetrievalConfigOption(withDataOption(command))
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
  const participants = participantsFromFlags(flags, context, data.dataDir, [data.domain]);
  if (participants.scriptedDemo && !human) println(context, `# ${SCRIPTED_DEMO_BANNER}`);
  if (human) {
    println(context, "You are the customer. Your situation (hidden from the agent):");
    println(context, scenarioText(task.user_scenario).replace(/^/gm, "  "));
    println(context, "Type messages; /tool <name> <json> uses your own tools; /stop ends the call.\n");
  }
  const user = human ? terminalUser(process.stdin, context.stdout) : participants.user;
  const run = await runConversation({
    data,
    task,
    agent: participants.agent,
    user,
    ...(participants.judge ? { judge: participants.judge } : {}),
    solo: flags.solo ?? false,
    protocol: participants.protocol,
    ...(participants.toolOverrides ? { toolOverrides: participants.toolOverrides } : {}),
    maxSteps: Number(flags.maxSteps),
    maxErrors: Number(flags.maxErrors),
    seed: Number(flags.seed),
    onEvent: (event) => {
      if (flags.json) return;
      if (human && event.type === "message" && event.message.role === "user") return; // the person just typed it
      const line = describeEvent(event);
      if (line) println(context, line);
    },
  });
  const reward = run.reward_info;
  participants.cache?.close();
  if (flags.json) {
    println(
      context,
      JSON.stringify({ ...run, ...(participants.scriptedDemo ? { scripted_demo: true } : {}) }, null, 2),
    );
  } else {
    println(context, describeReward(reward));
  }
}

export function registerSimulate(program: Command, context: CliContext): void {
  withModelFlags(
    withConversationFlags(
      program
        .command("simulate")
        .description("Run one conversation (agent vs simulated customer), print it live, then grade it"),
    ),
  )
    .option(
      "--solo",
      "solo mode: the agent works from the task's ticket, with the customer's tools, and calls done",
    )
    .option("--json", "print the graded simulation as JSON instead of the live transcript")
    .action((flags: SimulateFlags) => converse(flags, context, false));

  withModelFlags(
    withConversationFlags(
      program.command("chat").description("Play the customer yourself against the agent, in the terminal"),
    ),
    { user: false },
  ).action((flags: SimulateFlags) => converse(flags, context, true));
}
