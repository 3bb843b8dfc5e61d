/**
 * passk's public API. Everything a team needs to define its own domains and agents, run conversations,
 * grade them and compute reliability metrics. Test helpers (mock LLM server) live in `passk/testing`.
 */

// Core data model (τ²-bench JSON shapes) and interfaces
export {
  TaskSchema,
  TaskListSchema,
  ActionSchema,
  EnvAssertionSchema,
  EvaluationCriteriaSchema,
} from "./core/task.js";
export type {
  Task,
  Action,
  EnvAssertion,
  EnvFunctionCall,
  EvaluationCriteria,
  RewardType,
  UserScenario,
} from "./core/task.js";
export { MessageSchema, ToolCallSchema } from "./core/message.js";
export type { Message, AssistantMessage, UserMessage, ToolMessage, ToolCall } from "./core/message.js";
export {
  SimulationRunSchema,
  RewardInfoSchema,
  ResultsSchema,
  TerminationReasonSchema,
} from "./core/simulation.js";
export type { SimulationRun, RewardInfo, Results, TerminationReason } from "./core/simulation.js";
export type { Agent, AgentSession, AgentView, UserSimulator, UserSession, UserStart } from "./core/agent.js";
export { DEFAULT_FIRST_AGENT_MESSAGE, USER_STOP_TOKENS, AGENT_STOP_TOKEN } from "./core/agent.js";
export type { Judge, NlAssertionVerdict } from "./core/judge.js";
export type { LanguageModel, LlmRequest, LlmResponse, LlmMessage, LlmToolSpec } from "./core/llm.js";
export { InfrastructureError } from "./core/llm.js";
export { PasskError, ConfigError, InvalidInputFileError, UnknownNameError } from "./core/errors.js";

// Worlds, tools and domains
export { defineTool } from "./env/tool.js";
export type { Tool, ToolKind, ToolSpec, Toolkit, EnvFunction } from "./env/tool.js";
export { defineDomain } from "./env/domain.js";
export type { Domain, AnyDomain, DomainDataFiles } from "./env/domain.js";
export { pyDict } from "./env/schema-helpers.js";
export { World, ToolError } from "./env/world.js";
export type { WorldOptions, ArgumentValidation, ToolCallResult } from "./env/world.js";
export { pyFloatRepr } from "./python/py-json.js";
export { toolSpecs } from "./env/tool-schema.js";
export { builtinDomains, getDomain } from "./domains/registry.js";
export { mockDomain } from "./domains/mock/index.js";
export { airlineDomain } from "./domains/airline/index.js";
export { retailDomain } from "./domains/retail/index.js";
export { telecomDomain, telecomWorkflowDomain } from "./domains/telecom/index.js";

// Data and results files
export { DomainData } from "./formats/tau2/domain-data.js";
export { parseTasks, readTasksFile } from "./formats/tau2/tasks-file.js";
export { readResultsFile, writeResultsFile } from "./formats/tau2/results.js";
export { generateTasks } from "./generator/generate-tasks.js";
export { readTaskComponents } from "./generator/read-task-components.js";
export { formatPyJson } from "./python/py-json-indent.js";

// Conversations
export { simulate, runSimulation } from "./orchestrator/simulate.js";
export type { SimulationSetup } from "./orchestrator/simulate.js";
export type { SimulationEvent } from "./orchestrator/events.js";
export { conversationSetup } from "./runner/simulation-setup.js";
export { llmAgent } from "./agents/llm-agent.js";
export { createAgent } from "./agents/create-agent.js";
export { goldAgent } from "./agents/gold-agent.js";
export { replayAgent } from "./agents/replay-agent.js";
export { remoteAgent, McpToolServer, remoteAgentProtocolJsonSchema } from "./agents/remote/index.js";
export type { RemoteAgentOptions } from "./agents/remote/index.js";
export { llmUser } from "./users/llm-user.js";
export { createUserSimulator, customerSpecFor, readUserGuidelines } from "./users/create-user.js";
export { goldUser } from "./users/gold-user.js";
export { scriptedUser } from "./users/scripted-user.js";
export { llmJudge } from "./judge/llm-judge.js";
export { createJudge } from "./judge/create-judge.js";
export { createLanguageModel } from "./llm/index.js";
// Which providers are usable here (package, variables set) and how a model is priced.
export { providerReports, modelReport } from "./llm/provider-report.js";
export type { ProviderReport, ModelReport } from "./llm/provider-report.js";

// Grading and metrics
export { evaluateSimulation } from "./evaluation/evaluate-simulation.js";
export { replayGoldActions } from "./evaluation/gold-replay.js";
export { validateTask } from "./evaluation/validate-task.js";
export { passHatK, passAtK } from "./metrics/pass-hat-k.js";
export { computeMetrics, computeRunMetrics } from "./metrics/run-metrics.js";
export { planTrials, describeTaskStability } from "./metrics/statistics.js";
export { describeTokenUsage } from "./metrics/token-usage.js";
export { describeRunCost } from "./metrics/simulation-cost.js";
export { describeBlame } from "./review/blame.js";
export type { TrialsPlan } from "./metrics/statistics.js";

// Runs
export { Store } from "./store/store.js";
export type { JobQueue } from "./core/job-queue.js";
export type { RunStore, CheckpointStore, TurnCheckpoint } from "./core/run-store.js";
export { SqliteJobQueue } from "./store/sqlite-job-queue.js";
export { SqliteCheckpointStore } from "./store/sqlite-checkpoint-store.js";
export { run } from "./runner/run.js";
export { startRun, resumeRun, RunSpecSchema, ModelSpecSchema } from "./runner/start-run.js";
export type {
  RunSpec,
  ModelSpec,
  StartRunOptions,
  ResumeRunOptions,
  LaunchOutcome,
} from "./runner/start-run.js";
export { runVerdict, describeGates, describeNothingGraded, describeRunEnd } from "./runner/run-verdict.js";
export type { RunVerdict } from "./runner/run-verdict.js";
export { rescore } from "./runner/rescore.js";
export { storedRun, continuedConfig, resolveSaveTo, checkNotRunningElsewhere } from "./runner/resume.js";
export type { StoredRun, ResolvedRun, RunChanges } from "./runner/resume.js";
export { rerankerToolModel } from "./runner/reranker-model.js";
export { reviewRun } from "./runner/review-stored-run.js";
export type { ReviewRunOptions } from "./runner/review-stored-run.js";
export type { Rescored, RescoreOptions, ScoredRow } from "./runner/rescore.js";
export {
  runReport,
  runReportJson,
  runComparability,
  describeTaskIssues,
  describeRunHeader,
  describeRunStart,
} from "./runner/run-report.js";
export type { RunReport, RunReportOptions, DomainDataOptions } from "./runner/run-report.js";
export { loadRunSource } from "./runner/run-source.js";
export type { RunSource, StoreSource } from "./runner/run-source.js";
export { listRunSummaries, runSummaryJson, storedRunDetails, deleteStoredRun } from "./runner/stored-runs.js";
export { importResultsFile } from "./runner/import-results-file.js";
export type { ImportedResultsFile } from "./runner/import-results-file.js";
export { participantOf } from "./runner/run-info.js";
export type { RunSummary } from "./runner/stored-runs.js";
export { exportStoredRun, sftOfResults } from "./runner/run-export.js";
export type { StoredRunExport, RunSftExport, RunSftOptions } from "./runner/run-export.js";
export { prepareSubmissionDir, validateSubmissionDir } from "./runner/submission-dir.js";
export type { PreparedSubmissionDir, SubmissionDirOptions } from "./runner/submission-dir.js";
export type { RunOptions, RunParticipants, RunSessionEvent, RunSessionOutcome } from "./runner/run.js";
export { RunConfigSchema, migrateRunConfigV1 } from "./runner/run-spec.js";
export type { RunConfig, ParsedRunSpec } from "./runner/run-spec.js";
export { runConversation } from "./runner/conversation-job.js";
export { simulateConversation, SimulationSpecSchema } from "./runner/simulate-conversation.js";
export type {
  SimulationSpec,
  SimulateConversationOptions,
  SimulatedConversation,
} from "./runner/simulate-conversation.js";
export { buildParticipants, buildOfferedParticipants } from "./runner/build.js";
export type {
  ParticipantsSpec,
  Participants,
  OfferedParticipantsSpec,
  OfferedParticipants,
} from "./runner/build.js";
export { loadDomainData } from "./runner/run-assembly.js";
export { DomainCatalog } from "./formats/tau2/domain-catalog.js";
export type { DomainLoadSpec } from "./runner/run-assembly.js";
export {
  importAgentModule,
  importAgentModules,
  importDomainModule,
  importPerturbationModule,
} from "./runner/load-modules.js";

// The tools a model is given on one side of a domain, with the texts its protocol shows (`passk tools`)
export { domainTools } from "./runner/domain-tools.js";
export type { DomainTools, DomainToolsSpec } from "./runner/domain-tools.js";

// The web app's server (playground, explorer, gym) from code: assembleServer(spec) → createServer(deps)
export { assembleServer, ServeSpecSchema } from "./server/serve-spec.js";
export type { ServeSpec, AssembleServerOptions, AssembledServer } from "./server/serve-spec.js";
export { createServer } from "./server/create-server.js";
export type { ServerDeps } from "./server/server-deps.js";
export { attachVoicePlayground } from "./server/voice-playground.js";

// Runs across machines (Redis or Valkey, BullMQ) and limits on model calls
export { openDispatcher } from "./distributed/dispatcher.js";
export { startRunWorker } from "./distributed/run-worker.js";
export { queueDistribution } from "./distributed/queue-distribution.js";
export type { QueueDistributionOptions } from "./distributed/queue-distribution.js";
export type { RunWorkerOptions } from "./distributed/run-worker.js";
export type { Dispatcher, DispatcherOptions } from "./distributed/dispatcher.js";
export { startConversationWorker } from "./distributed/conversation-worker.js";
export type { ConversationWorker, ConversationWorkerOptions } from "./distributed/conversation-worker.js";
export { parseRedisUrl } from "./distributed/redis-url.js";
export { redisLimiterFactory } from "./distributed/redis-limiter.js";
export { redisCheckpointStore } from "./distributed/redis-checkpoint-store.js";
export { createCallLimiter, parseCallLimits, withCallLimits } from "./llm/call-limits.js";
export type { CallLimiter, CallLimits } from "./llm/call-limits.js";

// Robustness: perturbations (`--perturb`) and the robustness table
export { definePerturbation, rateSchedule } from "./perturbations/perturbation.js";
export type {
  PerturbationConversation,
  PerturbationDefinition,
  PerturbationEffects,
  PerturbationKind,
} from "./perturbations/perturbation.js";
export { builtinPerturbations, createPerturbationRegistry } from "./perturbations/registry.js";
export type { PerturbationRegistry, ResolvedPerturbation } from "./perturbations/registry.js";
export { perturbConversation } from "./perturbations/perturb-conversation.js";
export type { PerturbedConversation } from "./perturbations/perturb-conversation.js";
export { withCustomerInstructions } from "./perturbations/customer-perturbations.js";
export { perturbationMarks, toolCallNotRun } from "./core/perturbation.js";
export type { PerturbationMark, ToolBoundary } from "./core/perturbation.js";
export { robustnessRow } from "./metrics/robustness.js";
export type { RobustnessRow } from "./metrics/robustness.js";

// Voice (in progress): the τ-voice interaction metrics of the reference's full-duplex runs
export {
  computeInteractionMetrics,
  DEFAULT_INTERACTION_METRICS_CONFIG,
  INTERACTION_METRIC_FIELDS,
  INTERACTION_METRICS_VERSION,
  NoVoiceTicksError,
} from "./metrics/interaction-metrics.js";
export type {
  InteractionMetricCounts,
  InteractionMetrics,
  InteractionMetricsConfig,
  InteractionTick,
} from "./metrics/interaction-metrics.js";
export {
  isVoiceResultsDir,
  readVoiceResultsDir,
  TickSchema,
  VoiceSimulationSchema,
} from "./formats/tau2/voice-results.js";
export type { Tick, VoiceResults, VoiceSimulation } from "./formats/tau2/voice-results.js";
export { voiceRunInteractionMetrics } from "./runner/voice-interaction-metrics.js";
export type { VoiceRunInteractionMetrics } from "./runner/voice-interaction-metrics.js";

// Voice: a voice run's directory (results.json + simulations/), its audio, and the voice track's submissions
export {
  repairVoiceResultsDir,
  voiceRunInfo,
  VoiceResultsWriter,
  VoiceSimulationRecordSchema,
} from "./voice/results-dir.js";
export type {
  VoiceResultsHeader,
  VoiceRunInfo,
  VoiceRunInfoOptions,
  VoiceSimulationArtifacts,
  VoiceSimulationRecord,
} from "./voice/results-dir.js";
export {
  AUDIO_TAPS,
  AudioTapRecorder,
  audacityLabelFiles,
  simulationAudioDir,
  simulationTapsDir,
  stereoCallWav,
  writeSimulationAudio,
} from "./voice/audio-artifacts.js";
export type { CallWireAudio, LabelTick } from "./voice/audio-artifacts.js";
export {
  interactionMetricsBlock,
  prepareVoiceSubmission,
  validateAnySubmission,
  validateVoiceSubmission,
  voiceConfigOf,
} from "./runner/voice-submission.js";
export type { PreparedVoiceSubmission, VoiceSubmission } from "./runner/voice-submission.js";

// Voice agents: OpenAI Realtime (GA protocol) and compatible endpoints; a provider's failure
export {
  DEFAULT_OPENAI_REALTIME_MODEL,
  OPENAI_REALTIME_URL,
  OpenAiRealtimeAgent,
} from "./voice/agents/openai-realtime.js";
export type { OpenAiRealtimeAgentOptions, RealtimeServerVad } from "./voice/agents/openai-realtime.js";
export { SystemFailure } from "./core/system-failure.js";

// Voice: speech and transcription models from a spec, and the cascaded voice agent
export {
  createSpeechModel,
  createTranscriptionModel,
  personaVoice,
  personaVoiceVariable,
  PERSONA_VOICE_IDS,
  SPEECH_PROVIDERS,
  TRANSCRIPTION_PROVIDERS,
} from "./voice/speech-models.js";
export type {
  SpeakOptions,
  SpeechAudio,
  SpeechModel,
  SpeechModelOptions,
  Transcript,
  TranscriptionModel,
} from "./voice/speech-models.js";
export {
  cascadedVoiceAgent,
  DEFAULT_BARGE_IN_SECONDS,
  DEFAULT_END_OF_SPEECH,
} from "./voice/agents/cascaded.js";
export type { CascadedVoiceAgentOptions, EndOfSpeechOptions } from "./voice/agents/cascaded.js";

// Voice agents: Gemini Live, and a team's own voice agent over passk's WebSocket protocol (ws:URL)
export { geminiLiveAgent, DEFAULT_GEMINI_LIVE_MODEL } from "./voice/agents/gemini-live.js";
export type { GeminiLiveAgentOptions } from "./voice/agents/gemini-live.js";
export { wsVoiceAgent, parseWsVoiceAgentSpec } from "./voice/agents/ws-voice-agent.js";
export type { WsVoiceAgentOptions } from "./voice/agents/ws-voice-agent.js";
export {
  VOICE_AGENT_PROTOCOL,
  VoiceAgentMessageSchema,
  VoiceCallStartSchema,
} from "./voice/agents/ws-voice-protocol.js";
export type { VoiceAgentMessage, VoiceCallStart } from "./voice/agents/ws-voice-protocol.js";

// Voice runs: the call's contracts, the full-duplex call, the voice customer, the caller's line, grading
export { DEFAULT_TICK_SECONDS, WIRE_SAMPLE_RATE, wireBytesPerTick, silentTick } from "./voice/call.js";
export type {
  CallClock,
  CallerLine,
  CallerLineTick,
  VoiceAgent,
  VoiceAgentSetup,
  VoiceAgentTickInput,
  VoiceAgentTickOutput,
  VoiceUsageRecord,
} from "./voice/call.js";
export { simulateVoiceCall } from "./voice/full-duplex-call.js";
export type { VoiceCallResult, VoiceCallSetup } from "./voice/full-duplex-call.js";
export { llmVoiceCustomer, readVoiceGuidelines, telephoneLine } from "./voice/voice-customer.js";
export type { LlmVoiceCustomerOptions, VoiceCustomer } from "./voice/voice-customer.js";
export { gradeVoiceCall, linearizeTicks } from "./voice/linearize.js";
export { createCallerLine } from "./voice/effects/caller-line.js";
export { loadCallerNoise } from "./voice/effects/noise.js";
export { loadTasksVoice, voiceSettingsFor, SPEECH_COMPLEXITIES } from "./voice/voice-settings.js";
export type { VoiceSettings, TasksVoiceFile } from "./voice/voice-settings.js";
export { parseVoiceAgentSpec, voiceAgentFactory } from "./voice/agents/voice-agent-spec.js";
export { runVoiceCalls } from "./runner/voice-run.js";
export { simulateVoice, VoiceSimulationSpecSchema } from "./runner/voice-simulation.js";
export type {
  VoiceSimulationOptions,
  VoiceSimulationOutcome,
  VoiceSimulationSpec,
} from "./runner/voice-simulation.js";
export { compareVoiceRuns, voiceRunDifferences } from "./runner/voice-robustness.js";
export type {
  FlippedVoiceTask,
  VoiceInteractionComparison,
  VoiceRobustnessReport,
  VoiceRobustnessSide,
} from "./runner/voice-robustness.js";
export { startVoiceRun, buildVoiceParticipants, VoiceRunStartSpecSchema } from "./runner/start-voice-run.js";
export type { VoiceRunStartSpec, VoiceRunStart, StartVoiceRunOptions } from "./runner/start-voice-run.js";
export type {
  VoiceCallOutcome,
  VoiceRunOutcome,
  VoiceRunParticipants,
  VoiceRunSpec,
} from "./runner/voice-run.js";
