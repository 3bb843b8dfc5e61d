import type { Context, MiddlewareHandler } from "hono";
import type { NewSimulationNote } from "../core/simulation-note.js";
import type {
  AgentScore,
  Budget,
  CompareResponse,
  ConversationDetail,
  ConversationList,
  DocumentSearchResponse,
  DomainDetail,
  RunDetail,
  RunList,
  RunSearchResult,
  RunSummary,
  SequencedEvent,
  ServerInfo,
  SimulationDetail,
  SimulationNote,
  SimulationNotesResponse,
  SimulationModelCallsResponse,
  StartConversationRequest,
  StartConversationResponse,
  TaskDetail,
  TaskPage,
} from "./api-schemas.js";
import type { VoiceCallDetail, VoiceRunDetail, VoiceRunList } from "./voice-api-schemas.js";

/**
 * What the HTTP routes ask of the server, in the API's own types. The routes (`routes/`) depend on
 * this interface only, so they — and the route types the web client is typed with — import nothing
 * of Node; `createServer` implements it over the domains, the conversation hub and the run store.
 */
export interface ApiServices {
  info(): ServerInfo;
  budget(): Budget;
  /** The domain, with the first page of its task list. */
  domain(name: string): DomainDetail;
  /** A page of the domain's task list. */
  taskPage(domain: string, offset: number, limit: number): TaskPage;
  task(domain: string, taskId: string): TaskDetail;
  /** The agent's pass^k on the domain from its latest run in the store. */
  agentScore(domain: string, agent: string, user?: string): AgentScore;
  /** The domain's documents that best match a query (banking_knowledge's knowledge base). */
  documents(domain: string, query: string): DocumentSearchResponse;
  conversations: ConversationServices;
  runs: RunServices;
  /** Voice runs read from folders (`passk serve --voice-runs`). */
  voiceRuns: VoiceRunServices;
  /** Removes every secret (API keys) from a text before it leaves the server. */
  redact(text: string): string;
  /** Per-client rate limit on the endpoints that start or drive work. */
  rateLimited: MiddlewareHandler;
  /** Largest results file accepted for import, in bytes. */
  maxUploadBytes: number;
  /** Per-client limit on imports (each is a large write to the store), beside `rateLimited`. */
  importLimited: MiddlewareHandler;
  /** Open event streams per client: `take` gives a release function, or undefined when the client is at the cap. */
  streamSlots: { max: number; take(c: Context): (() => void) | undefined };
}

/** A person's turn: what they typed, or one of their own tools (their phone). */
export type CustomerTurnRequest = string | { name: string; arguments: Record<string, unknown> };

/** A conversation's events as a reader follows them (live, or kept from before and ended). */
export interface ConversationFeed {
  readonly events: readonly SequencedEvent[];
  readonly ended: boolean;
  /** Resolves once there are more than `seen` events, the conversation ended, or `signal` aborts. */
  waitForEvents(seen: number, signal?: AbortSignal): Promise<void>;
}

export interface ConversationServices {
  start(request: StartConversationRequest): StartConversationResponse;
  feed(id: string): ConversationFeed;
  detail(id: string): ConversationDetail;
  /** Those of `ids` the server has (a browser's own conversations). */
  list(limit: number, ids: readonly string[]): ConversationList;
  /** Only with the owner token `start` gave (`undefined`: none was sent). */
  say(id: string, turn: CustomerTurnRequest, ownerToken: string | undefined): void;
  end(id: string, ownerToken: string | undefined): void;
  /**
   * Start a conversation that continues the stopped or interrupted `id` (only its owner may): the same
   * task, participants and settings, its messages as the history, its world rebuilt from them.
   */
  continue(id: string, ownerToken: string | undefined): StartConversationResponse;
}

export interface RunServices {
  list(): RunList;
  /**
   * Import a results file's text; `again` imports a file that was imported before (otherwise that is
   * refused with `duplicate_import`, naming the run).
   */
  importResults(text: string, options: { name: string; again: boolean }): RunSummary;
  detail(runId: string): RunDetail;
  rename(runId: string, label: string): RunSummary;
  remove(runId: string): { id: string; simulations: number };
  simulation(runId: string, key: { domain: string; taskId: string; trial: number }): SimulationDetail;
  modelCalls(
    runId: string,
    key: { domain: string; taskId: string; trial: number },
  ): SimulationModelCallsResponse;
  compare(a: string, b: string): CompareResponse;
  search(runId: string, query: string): RunSearchResult;
  /** A simulation's notes, and whether notes can be added here. */
  notes(runId: string, key: { domain: string; taskId: string; trial: number }): SimulationNotesResponse;
  addNote(
    runId: string,
    key: { domain: string; taskId: string; trial: number },
    note: NewSimulationNote,
  ): SimulationNote;
  removeNote(runId: string, id: number): { id: number };
}

export interface VoiceRunServices {
  list(): VoiceRunList;
  detail(runId: string): VoiceRunDetail;
  call(runId: string, simulationId: string): VoiceCallDetail;
  /** The call's both.wav, whole or the part a Range header asks for. */
  audio(runId: string, simulationId: string, range: string | undefined): Response;
}
