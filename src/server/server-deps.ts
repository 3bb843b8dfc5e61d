import type { ScriptedReplay } from "./scripted-replay.js";
import type { ConversationAbout, ConversationTrace } from "../observability/conversation-trace.js";
import type { Agent, UserSimulator } from "../core/agent.js";
import type { Judge } from "../core/judge.js";
import type { PerturbationRegistry } from "../perturbations/registry.js";
import type { AnyDomain } from "../env/domain.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import type { ToolOverrides } from "../env/tool-schema.js";
import type { ConversationProtocol } from "../runner/simulation-setup.js";
import type { ConversationStore } from "../core/conversation-record.js";
import type { SequencedEvent } from "./api-schemas.js";
import type { ConversationLimits } from "./conversations.js";
import type { GymSessions } from "../gym/gym-sessions.js";
import type { RunCatalog } from "./run-catalog.js";

/** How the server makes agents and simulated customers from the specs it offers. */
export interface Participants {
  /** Agent specs the browser may pick; the first is the default. */
  agents: readonly string[];
  /** User-simulator specs the browser may pick; the first is the default. */
  users: readonly string[];
  agentFor(spec: string): Agent;
  customerFor(spec: string): UserSimulator;
}

export interface ServerLimits extends ConversationLimits {
  /** Requests per client address per window on the endpoints that start or drive work. */
  rateLimitMax: number;
  rateLimitWindowMs: number;
  /** Daily model spend cap in USD (UTC days); null for none. */
  dailySpendCapUsd: number | null;
  /**
   * What a conversation is assumed to cost at most, reserved against the cap while it runs; null for the
   * cap divided by maxActive.
   */
  conversationEstimateUsd: number | null;
  /** Largest results file accepted for import. */
  maxUploadBytes: number;
  /** Results files one client address may import per hour (each grows the store by up to maxUploadBytes). */
  importsPerHour: number;
  /** Event streams one client address may hold open at once (each holds a socket and memory). */
  maxStreamsPerClient: number;
}

/** Everything the server uses, handed in: no global state, so tests build one per case. */
export interface ServerDeps {
  domains: ReadonlyMap<string, AnyDomain>;
  /** τ² data directory holding each domain's folder. */
  dataDir: string;
  /**
   * Loads a domain's data (parsed once); default: a loader private to this server. Pass a shared one
   * to reuse parsed databases across servers (tests).
   */
  loadDomainData?: (domain: AnyDomain, dataDir: string) => DomainData;
  participants: Participants;
  /** Folders of voice runs for the explorer (`--voice-runs`): each a voice run directory or a folder of them. */
  voiceRuns?: readonly string[];
  /** Runs for the explorer; without one the explorer answers 404. */
  store?: RunCatalog;
  /**
   * Where playground conversations are kept (reopenable by URL, listed in the explorer); default: the
   * run store's, else memory.
   */
  conversations?: ConversationStore<SequencedEvent>;
  /** Judges NL assertions at the end of a playground conversation; without one they show as not judged. */
  judge?: Judge;
  /** Perturbations a simulated conversation may ask for; default: passk's own. */
  perturbations?: PerturbationRegistry;
  limits?: Partial<ServerLimits>;
  now?: () => Date;
  /** Folder of the built web app (`web/dist`); without one only the API is served. */
  webRoot?: string;
  /** Values that must never leave the server (API keys): removed from every answer. */
  secrets?: readonly string[];
  /** Take the client address from `X-Forwarded-For` (only behind a proxy you trust). */
  trustProxy?: boolean;
  /** How playground conversations on τ²'s domains run (default: passk's protocol). */
  protocol?: ConversationProtocol;
  /** `--tool-spec`: what the models are told about tools (over the protocol's texts). */
  toolOverrides?: ToolOverrides;
  /**
   * Host names the server answers for (besides localhost, 127.0.0.1 and ::1): its `--host` and a
   * deployment's names (`--allowed-host`). Any other Host header is refused, so a DNS-rebinding page
   * cannot reach the API.
   */
  allowedHosts?: readonly string[];
  /** Server-side log (errors with stacks); default: nowhere. */
  log?: (line: string) => void;
  newId?: () => string;
  /** Traces each playground conversation (`passk serve --otel`: `Tracing.conversation`). */
  traceConversation?: (about: ConversationAbout) => ConversationTrace;
  /**
   * The keyless playground: scripted:gold conversations replayed at a person's pace, the customer
   * opening as a customer, and `/api/info` saying what this is (`passk serve` with no model).
   */
  scriptedReplay?: ScriptedReplay;
  /** The agent gym over HTTP (`passk serve --gym`): sessions mounted at `/api/gym`; absent, no gym. */
  gym?: GymSessions;
}
