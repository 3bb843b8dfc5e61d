import { z } from "zod";
import { MessageSchema, ToolCallSchema, ToolMessageSchema } from "../core/message.js";
import { ConversationModeSchema, ConversationSummarySchema } from "../core/conversation-record.js";
import { RunStatusSchema } from "../core/run-store.js";
import { RewardInfoSchema, SimulationRunSchema, TerminationReasonSchema } from "../core/simulation.js";
import { TaskSchema } from "../core/task.js";
import { NewSimulationNoteSchema, SimulationNoteSchema } from "../core/simulation-note.js";
import { SimulationModelCallsSchema } from "../core/model-calls.js";
import { ReviewSchema } from "../review/blame.js";

/**
 * The web API's wire format, shared by the server (which validates requests with these schemas and
 * types its responses with them) and the web client (which parses responses with them). This module
 * imports only zod, `core/` schemas and the review's schema, so the browser bundle can include it.
 */

/** Every non-2xx answer: a stable `code` to branch on and a sentence for people. */
export const ApiErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
  /** The run a refusal is about (a results file imported before: `duplicate_import`). */
  runId: z.string().optional(),
});
export type ApiError = z.infer<typeof ApiErrorSchema>;

// ── Domains and tasks ────────────────────────────────────────────────────────────────────────────

export const BudgetSchema = z.object({
  /** Daily spend cap in USD; null when the server has none. */
  capUsd: z.number().nullable(),
  spentUsd: z.number(),
  /** Model calls whose price was unknown today (their cost is not in `spentUsd`). */
  unpricedCalls: z.number().int(),
  /** When the daily budget starts again (ISO, UTC midnight). */
  resetsAt: z.string(),
  /** The cap is reached: new conversations are refused until `resetsAt`. */
  exhausted: z.boolean(),
});
export type Budget = z.infer<typeof BudgetSchema>;

export const DomainSummarySchema = z.object({
  name: z.string(),
  description: z.string(),
  taskCount: z.number().int(),
  /** The customer has tools of their own (telecom: their phone). */
  hasUserTools: z.boolean(),
});
export type DomainSummary = z.infer<typeof DomainSummarySchema>;

export const ServerInfoSchema = z.object({
  domains: z.array(DomainSummarySchema),
  /** Participant specs this server lets the browser pick (the first is the default). */
  agents: z.array(z.string()),
  users: z.array(z.string()),
  budget: BudgetSchema,
  /** Whether runs can be browsed and imported (a store is attached). */
  explorer: z.boolean(),
  /** Perturbations a simulated conversation can meet (`passk run --perturb`'s), by name. */
  perturbations: z.array(
    z.object({ name: z.string(), version: z.number().int(), kind: z.string(), summary: z.string() }),
  ),
  /** The keyless playground's notice (a scripted replay, not a model), or null with models. */
  scriptedReplay: z.object({ what: z.string(), replay: z.string(), command: z.string() }).nullable(),
});
export type ServerInfo = z.infer<typeof ServerInfoSchema>;

export const ToolSummarySchema = z.object({
  name: z.string(),
  description: z.string(),
  side: z.enum(["agent", "user"]),
  kind: z.string(),
  /** JSON Schema of the arguments, as a model sees it. */
  parameters: z.record(z.string(), z.unknown()),
});
export type ToolSummary = z.infer<typeof ToolSummarySchema>;

/** A task in a domain's list: the picker's line (telecom lists thousands; details come per task). */
export const TaskSummarySchema = z.object({
  id: z.string(),
  /** One line: the task's purpose, else the customer's reason for calling. */
  title: z.string(),
});
export type TaskSummary = z.infer<typeof TaskSummarySchema>;

export const ScenarioKindSchema = z.enum([
  /** The customer asks for something the policy allows, and the agent does it. */
  "happy-path",
  /** The policy decides what may be done (which flights may be cancelled, when a line may resume). */
  "policy-driven",
  /** The customer pushes for what the policy forbids: the right outcome changes nothing. */
  "trap",
  /** A question to answer from the records: nothing may change. */
  "lookup",
  /** The customer changes their mind, or claims what the records contradict. */
  "contradiction",
  /** The customer must act on their side (their phone) while the agent guides them. */
  "customer-action",
  /** Several changes in a row. */
  "multi-step",
]);
export type ScenarioKind = z.infer<typeof ScenarioKindSchema>;

/** A one-click scenario: a real customer request (a task of the domain) showing a kind of situation. */
export const ScenarioChipSchema = z.object({
  kind: ScenarioKindSchema,
  label: z.string(),
  description: z.string(),
  taskId: z.string(),
  /** What the customer opens the conversation with (their reason for calling). */
  openingLine: z.string(),
});
export type ScenarioChip = z.infer<typeof ScenarioChipSchema>;

/**
 * How many tasks a domain's answer carries: its first page, all of airline's, retail's and
 * banking_knowledge's; telecom's 2,285 (about 500 KB) come after the page paints, a page at a time.
 */
export const FIRST_TASKS = 200;
/** The most tasks one page of a domain's task list holds. */
export const TASK_PAGE_SIZE = 1000;

export const DomainDetailSchema = z.object({
  name: z.string(),
  description: z.string(),
  policy: z.string(),
  tools: z.array(ToolSummarySchema),
  /** The first `FIRST_TASKS` of the domain's tasks, in order; the rest by `GET …/tasks?offset=`. */
  tasks: z.array(TaskSummarySchema),
  /** How many tasks the domain has in all. */
  taskCount: z.number().int(),
  scenarios: z.array(ScenarioChipSchema),
  hasUserTools: z.boolean(),
  /** The domain has documents to search (banking_knowledge's knowledge base). */
  hasDocuments: z.boolean(),
});
export type DomainDetail = z.infer<typeof DomainDetailSchema>;

/** A page of a domain's task list: the tasks from `offset` on, at most `TASK_PAGE_SIZE`. */
export const TaskPageSchema = z.object({
  offset: z.number().int(),
  total: z.number().int(),
  tasks: z.array(TaskSummarySchema),
});
export type TaskPage = z.infer<typeof TaskPageSchema>;

export const DocumentSearchResponseSchema = z.object({
  query: z.string(),
  hits: z.array(z.object({ id: z.string(), title: z.string(), score: z.number(), content: z.string() })),
});
export type DocumentSearchResponse = z.infer<typeof DocumentSearchResponseSchema>;

export const TaskDetailSchema = z.object({ domain: z.string(), task: TaskSchema });
export type TaskDetail = z.infer<typeof TaskDetailSchema>;

// ── Playground ───────────────────────────────────────────────────────────────────────────────────

const name = (what: string, max = 200) =>
  z
    .string({ error: `${what} must be a string` })
    .min(1, `${what} must not be empty`)
    .max(max, `${what} is longer than ${max} characters`);

export const StartConversationRequestSchema = z
  .strictObject({
    domain: name("domain", 64),
    /** Required to simulate; optional when a person plays the customer (free conversation). */
    taskId: name("taskId", 512).optional(),
    mode: ConversationModeSchema,
    /** One of the server's offered agent specs; default: the first. */
    agent: name("agent").optional(),
    user: name("user").optional(),
    /** Perturbations the conversation meets, as `passk run --perturb` specs (simulate mode). */
    perturbations: z.array(z.string().min(1).max(200)).max(8).optional(),
  })
  .refine((request) => request.mode !== "simulate" || request.taskId !== undefined, {
    message: "taskId is required in simulate mode (the simulated customer plays a task)",
    path: ["taskId"],
  })
  .refine((request) => request.mode === "simulate" || (request.perturbations ?? []).length === 0, {
    message: "perturbations apply to simulated conversations (mode simulate)",
    path: ["perturbations"],
  });
export type StartConversationRequest = z.infer<typeof StartConversationRequestSchema>;

export const StartConversationResponseSchema = z.object({
  conversationId: z.string(),
  domain: z.string(),
  taskId: z.string().nullable(),
  /** Server-sent events of the conversation, from its start. */
  eventsUrl: z.string(),
  /**
   * The capability to control the conversation (type as the customer, end it), given only here: send
   * it as the `Passk-Owner-Token` header. The id alone (the link) lets anyone watch, not control.
   */
  ownerToken: z.string(),
});
export type StartConversationResponse = z.infer<typeof StartConversationResponseSchema>;

/** What the person does on their turn: say something, or use one of their own tools (their phone). */
export const CustomerMessageRequestSchema = z
  .strictObject({
    content: z
      .string({ error: "content must be a string" })
      .trim()
      .min(1, "content must not be empty")
      .max(4000, "content is longer than 4000 characters")
      .optional(),
    toolCall: z
      .strictObject({
        name: name("toolCall.name", 100),
        arguments: z.record(z.string(), z.unknown()).default({}),
      })
      .optional(),
  })
  .refine((turn) => (turn.content === undefined) !== (turn.toolCall === undefined), {
    message: "send either {content: text} or {toolCall: {name, arguments}}",
  });
export type CustomerMessageRequest = z.infer<typeof CustomerMessageRequestSchema>;

export const OkResponseSchema = z.object({ ok: z.literal(true) });

/** One field of a record before and after a change (paths like `payment_methods.gift_card_1.amount`). */
export const FieldChangeSchema = z.object({ path: z.string(), before: z.unknown(), after: z.unknown() });
export type FieldChange = z.infer<typeof FieldChangeSchema>;

export const RecordChangeSchema = z.object({
  collection: z.string(),
  /** The record's id; for a non-collection field (e.g. telecom `device`) the sub-key. */
  id: z.string(),
  kind: z.enum(["changed", "added", "removed"]),
  fields: z.array(FieldChangeSchema),
});
export type RecordChange = z.infer<typeof RecordChangeSchema>;

/** A record of the world whole, as it stands (a reservation, an order, a user). */
export const WorldRecordSchema = z.object({ collection: z.string(), id: z.string(), record: z.unknown() });
export type WorldRecord = z.infer<typeof WorldRecordSchema>;

export const FailedCheckSchema = z.object({ kind: z.string(), check: z.string() });
export type FailedCheck = z.infer<typeof FailedCheckSchema>;

/**
 * The policy passage an action exercises (`createPolicyLinker`): its index among `policyPassages(policy)`,
 * its character range in the domain's policy, its headings joined by " › ", and its BM25 score.
 */
export const PolicyLinkSchema = z.object({
  passage: z.number().int(),
  start: z.number().int(),
  end: z.number().int(),
  section: z.string(),
  score: z.number(),
});
export type PolicyLinkView = z.infer<typeof PolicyLinkSchema>;

/** A recorded message's policy link, for the explorer: what exercised it and the passage's text. */
export const PolicyLinkNoteSchema = z.object({
  messageIndex: z.number().int(),
  /** The tool call's name, or "the agent's refusal". */
  by: z.string(),
  link: PolicyLinkSchema,
  excerpt: z.string(),
});
export type PolicyLinkNote = z.infer<typeof PolicyLinkNoteSchema>;

/** What the playground streams, in order; `seq` numbers events from 0 (the SSE id). */
export const PlaygroundEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("conversation-start"),
    conversationId: z.string(),
    mode: ConversationModeSchema,
    domain: z.string(),
    taskId: z.string().nullable(),
    agent: z.string(),
    user: z.string().nullable(),
    /** The perturbations it meets, as canonical specs (absent: none). */
    perturbations: z.array(z.string()).optional(),
    /** The earlier (stopped or interrupted) conversation it continues. */
    continues: z.string().optional(),
  }),
  /** `policyLink`: an agent's refusal, and the policy passage it rests on. */
  z.object({ type: z.literal("message"), message: MessageSchema, policyLink: PolicyLinkSchema.optional() }),
  /** `policyLink`: the policy passage an agent's tool call exercises (absent: none matches well). */
  z.object({
    type: z.literal("tool-call-start"),
    call: ToolCallSchema,
    policyLink: PolicyLinkSchema.optional(),
  }),
  z.object({
    type: z.literal("tool-call-end"),
    call: ToolCallSchema,
    policyLink: PolicyLinkSchema.optional(),
    result: ToolMessageSchema,
    latencyMs: z.number(),
    /**
     * The agent's records the call names by its arguments (`reservation_id`, `order_id`, …), whole, as
     * they stand after it. Absent in conversations stored before it existed.
     */
    records: z.array(WorldRecordSchema).optional(),
  }),
  z.object({
    type: z.literal("world-change"),
    side: z.enum(["agent", "user"]),
    records: z.array(RecordChangeSchema),
    /** Each changed or added record of a collection, whole, as it now stands (absent: none, or stored before). */
    current: z.array(WorldRecordSchema).optional(),
  }),
  /** The customer's own state (telecom: the phone), whole, at the start and after each change. */
  z.object({ type: z.literal("user-state"), state: z.unknown() }),
  z.object({
    type: z.literal("usage"),
    role: z.enum(["assistant", "user"]),
    promptTokens: z.number(),
    completionTokens: z.number(),
    cost: z.number().nullable(),
  }),
  /** Human mode: the agent waits for the person to type. */
  z.object({ type: z.literal("awaiting-customer") }),
  z.object({
    type: z.literal("simulation-end"),
    terminationReason: TerminationReasonSchema,
    error: z.string().nullable(),
    durationSeconds: z.number(),
    agentCost: z.number().nullable(),
    userCost: z.number().nullable(),
  }),
  z.object({
    type: z.literal("reward"),
    rewardInfo: RewardInfoSchema,
    failedChecks: z.array(FailedCheckSchema),
    /**
     * A failed conversation's verdict from `passk review`'s deterministic checks (no model): who caused
     * it and what that rests on; null when it passed. Absent in conversations stored before it existed.
     */
    review: ReviewSchema.nullable().optional(),
  }),
  /**
   * Always the last event. `interrupted`: the server stopped while the conversation ran (what was
   * said before is kept).
   */
  z.object({
    type: z.literal("conversation-end"),
    reason: z.enum(["finished", "abandoned", "failed", "interrupted"]),
    message: z.string().nullable(),
  }),
]);
export type PlaygroundEvent = z.infer<typeof PlaygroundEventSchema>;
export const SequencedEventSchema = z.intersection(
  z.object({ seq: z.number().int() }),
  PlaygroundEventSchema,
);
export type SequencedEvent = z.infer<typeof SequencedEventSchema>;

export const ConversationListSchema = z.object({ conversations: z.array(ConversationSummarySchema) });
export type ConversationList = z.infer<typeof ConversationListSchema>;

export const ConversationDetailSchema = z.object({
  conversation: ConversationSummarySchema,
  /** Whether this server is running it now (its events stream live), or it is kept from before. */
  live: z.boolean(),
});
export type ConversationDetail = z.infer<typeof ConversationDetailSchema>;

/**
 * The agent's measured reliability on a domain: its newest clean run there (unperturbed, not a scripted
 * demo, the full base split; with the customer model when one is given), else its newest unperturbed
 * run, labelled.
 */
export const AgentScoreSchema = z.object({
  agent: z.string(),
  domain: z.string(),
  run: z
    .object({
      id: z.string(),
      name: z.string(),
      date: z.string().nullable(),
      tasks: z.number().int(),
      trials: z.number().int(),
      /** pass^k for k = 1…trials over this domain's tasks of the run. */
      passHatKs: z.record(z.string(), z.number()),
      /** The domain's simulations of the run, and how many of them were graded (the scores cover those). */
      simulations: z.number().int(),
      graded: z.number().int(),
      /** 95% bootstrap interval of each pass^k. */
      intervals: z.record(z.string(), z.object({ low: z.number(), high: z.number() })),
      /** What the run is when it is not a clean full-split measurement: "scripted demo", "task subset: …". */
      labels: z.array(z.string()),
    })
    .nullable(),
});
export type AgentScore = z.infer<typeof AgentScoreSchema>;
export const AgentScoreQuerySchema = z.strictObject({ agent: name("agent"), user: name("user").optional() });
export const DocumentQuerySchema = z.strictObject({ q: name("q") });

// ── Explorer ─────────────────────────────────────────────────────────────────────────────────────

/** How far a run has come, read while it runs (the explorer polls it). */
export const RunProgressSchema = z.object({
  /** (task, trial) conversations planned so far; an adaptive run adds some each round. */
  planned: z.number().int(),
  /** Conversations stored: graded, and infrastructure errors. */
  done: z.number().int(),
  /** When the process running it now started; null when none is. */
  startedAt: z.string().nullable(),
  /** Its last sign of life: a conversation stored, a job claimed or renewed, its record changed. */
  updatedAt: z.string(),
  /** Seconds since `updatedAt`, by the server's clock. */
  idleSeconds: z.number(),
  /** Running, yet nothing moved for {@link STALLED_AFTER_SECONDS}: its runner may have died. */
  stalled: z.boolean(),
  /** Conversations stored per minute since `startedAt`; null until two are, or when not running. */
  perMinute: z.number().nullable(),
  /** Seconds left at that pace for what is planned; null when unknown (adaptive runs grow their plan). */
  etaSeconds: z.number().nullable(),
  adaptive: z.boolean(),
});
export type RunProgress = z.infer<typeof RunProgressSchema>;

/**
 * A running run with no sign of life for this long is called stalled. A live runner renews the lease
 * of each conversation in flight every few minutes (a third of the 10-minute lease), so a long
 * conversation does not look stalled.
 */
export const STALLED_AFTER_SECONDS = 10 * 60;

export const RunSummarySchema = z.object({
  id: z.string(),
  /** `running` while a runner works on it (or died without saying so: see `progress.stalled`). */
  status: RunStatusSchema,
  progress: RunProgressSchema,
  label: z.string().nullable(),
  /** The agent's model (τ² `agent_info.llm`), or its implementation name. */
  model: z.string().nullable(),
  userModel: z.string().nullable(),
  domains: z.array(z.string()),
  tasks: z.number().int(),
  trials: z.number().int(),
  simulations: z.number().int(),
  /** Simulations graded (infrastructure errors are not): the scores cover these only. */
  graded: z.number().int(),
  /** pass^k for k = 1…K. */
  passHatKs: z.record(z.string(), z.number()),
  avgReward: z.number(),
  /** Total agent + user cost in USD; null when some price was unknown. */
  totalCost: z.number().nullable(),
  /** When the run was made (the results file's timestamp), else when it was imported. */
  date: z.string().nullable(),
  /** Whether its numbers can stand beside the τ²-bench leaderboard's, and if not, why. */
  comparability: z.object({
    comparable: z.boolean(),
    reasons: z.array(z.string()),
    /** The run's tasks graded differently from today's official ones (an imported run's own tasks). */
    changedTasks: z.array(z.object({ domain: z.string(), taskIds: z.array(z.string()) })).optional(),
  }),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

export const RunListSchema = z.object({ runs: z.array(RunSummarySchema) });
export type RunList = z.infer<typeof RunListSchema>;

export const ImportResponseSchema = z.object({ run: RunSummarySchema });
export const ImportQuerySchema = z.object({
  name: z.string().optional(),
  /** Import even when the same file was imported before. */
  again: z.enum(["true", "false"]).optional(),
});

export const RenameRunRequestSchema = z.strictObject({
  label: z
    .string({ error: "label must be a string" })
    .trim()
    .min(1, "label must not be empty")
    .max(200, "label is longer than 200 characters"),
});
export type RenameRunRequest = z.infer<typeof RenameRunRequestSchema>;

export const DeleteRunResponseSchema = z.object({ id: z.string(), simulations: z.number().int() });

export const PassKPointSchema = z.object({
  k: z.number().int(),
  value: z.number(),
  low: z.number().nullable(),
  high: z.number().nullable(),
});
export type PassKPoint = z.infer<typeof PassKPointSchema>;

export const GridCellSchema = z.object({
  trial: z.number().int(),
  reward: z.number().nullable(),
  terminationReason: z.string(),
  /** Kinds of the checks that failed (`DB`, `ACTION`, `COMMUNICATE`, `ENV_ASSERTION`, `NL_ASSERTION`, `TERMINATION`…). */
  failedKinds: z.array(z.string()),
  cost: z.number().nullable(),
  /** Who caused this failure, when `passk review` placed it. */
  blame: z.object({ culprit: z.string(), reason: z.string() }).nullable().optional(),
  /** How many notes people wrote on this simulation. */
  notes: z.number().int().optional(),
  /** A note on it flags a task issue (the task, not the agent, is at fault). */
  taskIssue: z.boolean().optional(),
});
export type GridCell = z.infer<typeof GridCellSchema>;

export const GridRowSchema = z.object({
  domain: z.string(),
  taskId: z.string(),
  /** One line about the task: its purpose, else the customer's reason for calling; null if unknown. */
  title: z.string().nullable(),
  /** Task defects: gold actions that raise when replayed, each naming the action and its error. */
  defects: z.array(z.string()).optional(),
  successes: z.number().int(),
  cells: z.array(GridCellSchema),
});
export type GridRow = z.infer<typeof GridRowSchema>;

/** A perturbation against the clean baseline on the same tasks and seeds (`passk robustness`). */
export const RobustnessRowViewSchema = z.object({
  perturbation: z.string(),
  k: z.number().int(),
  tasks: z.number().int(),
  clean: z.number().nullable(),
  perturbed: z.number().nullable(),
  /** clean − perturbed pass^k, with its 95% paired bootstrap interval. */
  drop: z.number().nullable(),
  dropInterval: z.object({ low: z.number(), high: z.number() }).nullable(),
  pValue: z.number().nullable(),
  /** perturbed ÷ clean pass^k. */
  kept: z.number().nullable(),
  /** `domain/task_id` of the tasks whose pass^k fell. */
  broke: z.array(z.string()),
  runId: z.string().nullable(),
  baselineRunId: z.string().nullable(),
});
export type RobustnessRowView = z.infer<typeof RobustnessRowViewSchema>;

export const RunDetailSchema = z.object({
  run: RunSummarySchema,
  passHatK: z.array(PassKPointSchema),
  terminationReasons: z.record(z.string(), z.number()),
  costs: z.object({
    avgAgentCost: z.number().nullable(),
    avgUserCost: z.number().nullable(),
    totalAgentCost: z.number().nullable(),
    totalUserCost: z.number().nullable(),
  }),
  infraErrors: z.number().int(),
  /** How many failed simulations each kind of check accounts for. */
  failedCheckKinds: z.array(z.object({ kind: z.string(), count: z.number().int() })),
  /** How many reviewed failures each culprit caused (`passk review`); empty when never reviewed. */
  blame: z.array(z.object({ culprit: z.string(), count: z.number().int() })).optional(),
  grid: z.array(GridRowSchema),
  maxTrials: z.number().int(),
  /** The robustness table when the run has a clean baseline or perturbed siblings; empty otherwise. */
  robustness: z.array(RobustnessRowViewSchema).optional(),
  /** Simulations a note flags as a task issue. */
  taskIssues: z.number().int().optional(),
});
export type RunDetail = z.infer<typeof RunDetailSchema>;

export const RecordDiffSchema = z.object({
  collection: z.string(),
  id: z.string(),
  kind: z.enum(["changed", "only_predicted", "only_gold"]),
  // A field absent on one side (a record only the gold run made) comes without that side: JSON drops undefined.
  fields: z.array(
    z.object({ path: z.string(), predicted: z.unknown().optional(), gold: z.unknown().optional() }),
  ),
});
export type RecordDiff = z.infer<typeof RecordDiffSchema>;

export const SimulationKeySchema = z.object({
  domain: z.string(),
  taskId: z.string(),
  trial: z.number().int(),
});
export type SimulationKeyView = z.infer<typeof SimulationKeySchema>;

/**
 * Where a trajectory first departs from the task's gold actions: the message at which it happens
 * (an index into the simulation's messages), what the gold list expected there and what happened.
 */
export const GoldDivergenceSchema = z.object({
  messageIndex: z.number().int(),
  kind: z.enum(["unexpected-call", "out-of-order", "missing-action", "wrong-arguments", "failed-call"]),
  /** The gold action expected at that point (index into the task's actions), if any. */
  expectedAction: z.number().int().nullable(),
  sentence: z.string(),
});
export type GoldDivergence = z.infer<typeof GoldDivergenceSchema>;

export const SimulationDetailSchema = z.object({
  runId: z.string(),
  runName: z.string(),
  domain: z.string(),
  trial: z.number().int(),
  /** The simulations around this one in the run's grid order (all, and failing ones only). */
  neighbours: z.object({
    previous: SimulationKeySchema.nullable(),
    next: SimulationKeySchema.nullable(),
    previousFailing: SimulationKeySchema.nullable(),
    nextFailing: SimulationKeySchema.nullable(),
    /** Position in the run (1-based) and how many simulations it has. */
    position: z.number().int(),
    total: z.number().int(),
  }),
  /** The other trials of this task in the run, with their rewards (null: not graded). */
  trials: z.array(z.object({ trial: z.number().int(), reward: z.number().nullable() })),
  /** For each gold action of the task, whether some call of the trajectory matched it (τ²'s action check). */
  goldMatched: z.array(z.boolean()),
  goldDivergence: GoldDivergenceSchema.nullable(),
  /** Who caused this failure and what that rests on, when `passk review` placed it. */
  review: ReviewSchema.nullable().optional(),
  task: TaskSchema.nullable(),
  simulation: SimulationRunSchema,
  failedChecks: z.array(FailedCheckSchema),
  /** Predicted-vs-gold records; null when there is nothing to compare or no data to compare with. */
  dbDiff: z.object({ agent: z.array(RecordDiffSchema), user: z.array(RecordDiffSchema) }).nullable(),
  /** Where the diff comes from: the stored reward info, a re-evaluation on this server, or nowhere. */
  dbDiffSource: z.enum(["recorded", "recomputed", "unavailable"]),
  /** The policy passages its agent's tool calls and refusals exercise (absent: the domain has no data here). */
  policyLinks: z.array(PolicyLinkNoteSchema).optional(),
});
export type SimulationDetail = z.infer<typeof SimulationDetailSchema>;

/**
 * The model calls behind a simulation's turns (`passk run` records them beside the results): null when
 * none were recorded (an imported file, a scripted run, a run made before passk recorded them).
 */
export const SimulationModelCallsResponseSchema = z.object({
  simulationId: z.string(),
  record: SimulationModelCallsSchema.nullable(),
});
export type SimulationModelCallsResponse = z.infer<typeof SimulationModelCallsResponseSchema>;

export const TaskComparisonSchema = z.object({
  domain: z.string(),
  taskId: z.string(),
  /** Each run's trials of the task with their rewards (null: not graded), to open side by side. */
  trialsA: z.array(z.object({ trial: z.number().int(), reward: z.number().nullable() })),
  trialsB: z.array(z.object({ trial: z.number().int(), reward: z.number().nullable() })),
  before: z.array(z.number()),
  after: z.array(z.number()),
  difference: z.array(z.number()),
  regressed: z.boolean(),
  improved: z.boolean(),
});
export type TaskComparison = z.infer<typeof TaskComparisonSchema>;

export const CompareResponseSchema = z.object({
  a: RunSummarySchema,
  b: RunSummarySchema,
  k: z.number().int(),
  /** Regressions first (worst first), then improvements, then unchanged tasks. */
  tasks: z.array(TaskComparisonSchema),
  onlyInA: z.array(z.string()),
  onlyInB: z.array(z.string()),
  passHatKsA: z.record(z.string(), z.number()),
  passHatKsB: z.record(z.string(), z.number()),
  /** Is the difference real: a paired test over the common tasks, in numbers and in one sentence. */
  significance: z.object({
    difference: z.number(),
    low: z.number(),
    high: z.number(),
    pValue: z.number(),
    distinguishable: z.boolean(),
    minimumDetectableDifference: z.number(),
    sentence: z.string(),
  }),
});
export type CompareResponse = z.infer<typeof CompareResponseSchema>;

export const CompareQuerySchema = z.strictObject({ a: name("a"), b: name("b") });
export const RunIdParamSchema = z.object({ runId: name("runId") });

/** `GET /api/runs/:runId/search?q=`: words to find in the run's transcripts (2–200 characters). */
export const RunSearchQuerySchema = z.object({
  q: z
    .string({ error: "q (the words to find) is required" })
    .trim()
    .min(2, "q must have at least 2 characters")
    .max(200, "q is longer than 200 characters"),
});

export const RunSearchResultSchema = z.object({
  query: z.string(),
  /** Conversations searched (all of the run's). */
  searched: z.number().int(),
  hits: z.array(
    z.object({
      domain: z.string(),
      taskId: z.string(),
      trial: z.number().int(),
      messageIndex: z.number().int(),
      role: z.enum(["system", "assistant", "user", "tool"]),
      snippet: z.object({ before: z.string(), match: z.string(), after: z.string() }),
    }),
  ),
  /** More messages matched than are listed: narrow the words. */
  truncated: z.boolean(),
});
export type RunSearchResult = z.infer<typeof RunSearchResultSchema>;
export const SimulationParamSchema = z.object({
  runId: name("runId"),
  domain: name("domain", 64),
  taskId: name("taskId", 512),
  trial: z.coerce
    .number({ error: "trial must be a number" })
    .int("trial must be an integer")
    .min(0, "trial must be 0 or more"),
});
export const NoteParamSchema = z.object({
  runId: name("runId"),
  noteId: z.coerce
    .number({ error: "noteId must be a number" })
    .int("noteId must be an integer")
    .min(1, "noteId must be 1 or more"),
});
export { NewSimulationNoteSchema as AddNoteRequestSchema, SimulationNoteSchema };
export type { SimulationNote } from "../core/simulation-note.js";
/** A simulation's notes; `writable` is false on a server whose store keeps none (nothing can be added). */
export const SimulationNotesResponseSchema = z.object({
  notes: z.array(SimulationNoteSchema),
  writable: z.boolean(),
});
export type SimulationNotesResponse = z.infer<typeof SimulationNotesResponseSchema>;
export const AddNoteResponseSchema = z.object({ note: SimulationNoteSchema });
export const DeleteNoteResponseSchema = z.object({ id: z.number().int() });
export const DomainParamSchema = z.object({ domain: name("domain", 64) });
export const TaskPageQuerySchema = z.strictObject({
  offset: z.coerce
    .number({ error: "offset must be a number" })
    .int("offset must be an integer")
    .min(0, "offset must be 0 or more")
    .default(0),
  limit: z.coerce
    .number({ error: "limit must be a number" })
    .int("limit must be an integer")
    .min(1, "limit must be 1 or more")
    .max(TASK_PAGE_SIZE, `limit must be at most ${TASK_PAGE_SIZE}`)
    .default(TASK_PAGE_SIZE),
});
export const TaskParamSchema = z.object({ domain: name("domain", 64), taskId: name("taskId", 512) });
export const ConversationParamSchema = z.object({ conversationId: name("conversationId", 64) });
export const ConversationListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).optional(),
  /**
   * The conversations to list, comma-separated (those this browser started): the server lists no
   * conversation it is not asked about by id, so nobody learns another visitor's links.
   */
  ids: z
    .string()
    .max(50 * 40, "ids is longer than 50 conversation ids")
    .transform((text) => text.split(",").filter((id) => id !== ""))
    .optional(),
});
export const EventsQuerySchema = z.object({
  /** Resume after this event (SSE clients send Last-Event-ID instead). */
  after: z.coerce.number().int().min(-1).optional(),
});
