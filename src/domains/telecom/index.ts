import { defineDomain, type Domain, type DomainDataFiles } from "../../env/domain.js";
import { agentFunctions } from "./agent-functions.js";
import { TelecomDbSchema, type TelecomDb } from "./db-schema.js";
import { telecomPolicy } from "./policy.js";
import { syncTelecom } from "./sync.js";
import { TAU2_TYPES } from "./tau2-types.js";
import { agentTools } from "./tools.js";
import { userFunctions } from "./user-functions.js";
import { TelecomUserDbSchema, type TelecomUserDb } from "./user-db-schema.js";
import { userTools } from "./user-tools.js";

const dataFiles = {
  folder: "telecom",
  db: "db.toml",
  userDb: "user_db.toml",
  tasks: "tasks.json",
  splits: "split_tasks.json",
} as const;

function telecomVariant(options: {
  name: string;
  description: string;
  policy: DomainDataFiles["policy"];
  soloPolicy: DomainDataFiles["soloPolicy"];
}): Domain<TelecomDb, TelecomUserDb> {
  return defineDomain<TelecomDb, TelecomUserDb>({
    name: options.name,
    description: options.description,
    agent: { className: "TelecomTools", db: TelecomDbSchema, tools: agentTools, functions: agentFunctions },
    user: {
      className: "TelecomUserTools",
      db: TelecomUserDbSchema,
      tools: userTools,
      functions: userFunctions,
    },
    sync: syncTelecom,
    // `passk call` starts from John Smith's phone at home, as τ²'s bad-call fixtures do.
    standaloneSetup: [
      {
        env_type: "user",
        func_name: "set_user_info",
        arguments: { name: "John Smith", phone_number: "555-123-2002" },
      },
      { env_type: "user", func_name: "set_user_location", arguments: { abroad: false } },
    ],
    tau2: {
      agentTools: "src/tau2/domains/telecom/tools.py",
      userTools: "src/tau2/domains/telecom/user_tools.py",
      types: TAU2_TYPES,
    },
    data: { ...dataFiles, policy: options.policy, soloPolicy: options.soloPolicy },
  });
}

/** τ²-bench's telecom domain: a carrier's agent and a customer who works their own phone. */
export const telecomDomain = telecomVariant({
  name: "telecom",
  description:
    "Mobile carrier support (dual control): the agent manages lines, plans and bills while the customer works their own phone's settings.",
  policy: telecomPolicy("main_policy.md", "tech_support_manual.md"),
  soloPolicy: telecomPolicy("main_policy_solo.md", "tech_support_manual.md"),
});

/** The same world with the technical support policy written as a workflow instead of a manual. */
export const telecomWorkflowDomain = telecomVariant({
  name: "telecom-workflow",
  description: "Telecom with the technical support policy given as a step-by-step workflow.",
  policy: telecomPolicy("main_policy.md", "tech_support_workflow.md"),
  soloPolicy: telecomPolicy("main_policy_solo.md", "tech_support_workflow_solo.md"),
});
