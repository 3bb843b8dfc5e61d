import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";
import { ConfigError, PasskError, UnknownNameError } from "../core/errors.js";
import { createPerturbationRegistry, resolvePerturbations } from "../perturbations/registry.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import { DomainCatalog } from "../formats/tau2/domain-catalog.js";
import type { AnyDomain } from "../env/domain.js";
import { redactSecrets } from "../llm/redact.js";
import {
  FIRST_TASKS,
  type DomainDetail,
  type ServerInfo,
  type StartConversationRequest,
  type StartConversationResponse,
  type TaskDetail,
  type TaskPage,
  type TaskSummary,
} from "./api-schemas.js";
import type { ApiServices, RunServices } from "./api-services.js";
import { createMemoryConversationStore } from "../store/conversation-store.js";
import { ConversationHub, type StartConversation } from "./conversations.js";
import type { ServerDeps, ServerLimits } from "./server-deps.js";
import { scenarioChips, taskSummary, toolSummaries } from "./domain-views.js";
import { rateLimit } from "./rate-limit.js";
import { RunViews } from "./run-views.js";
import {
  FeatureDisabledError,
  ParticipantNotOfferedError,
  SpendCapCommittedError,
  SpendCapReachedError,
} from "./server-errors.js";
import { SpendTracker } from "./spend-tracker.js";
import { createVoiceRunServices } from "./voice-runs.js";
import { pacedAgent, replayCustomer, SCRIPTED_REPLAY_NOTICE } from "./scripted-replay.js";

/**
 * The server's services over its dependencies: domains (parsed once, on first use), the
 * conversation hub, the spend tracker and the run store's views.
 */
export function createApiServices(deps: ServerDeps, limits: ServerLimits): ApiServices {
  const now = deps.now ?? (() => new Date());
  const secrets = deps.secrets ?? [];
  const log = deps.log ?? (() => {});
  const spend = new SpendTracker({ capUsd: limits.dailySpendCapUsd, now });
  const perturbations = deps.perturbations ?? createPerturbationRegistry();
  /** The perturbations a request names, resolved; an unknown one or a bad setting is a 400 naming it. */
  const requestedPerturbations = (specs: readonly string[]) => {
    try {
      return resolvePerturbations(perturbations, specs, "perturbations");
    } catch (error) {
      if (!ConfigError.isInstance(error)) throw error;
      throw new ConfigError(error.message.replace(/^--perturb /, "perturbations: "));
    }
  };
  const hub = new ConversationHub({
    limits,
    spend,
    now,
    log,
    store: deps.conversations ?? deps.store?.conversations ?? createMemoryConversationStore(),
    ...(deps.judge ? { judge: deps.judge } : {}),
    ...(deps.protocol ? { protocol: deps.protocol } : {}),
    ...(deps.toolOverrides ? { toolOverrides: deps.toolOverrides } : {}),
    ...(deps.newId ? { newId: deps.newId } : {}),
    ...(deps.traceConversation ? { trace: deps.traceConversation } : {}),
  });

  const catalog = new DomainCatalog();
  const loadDomainData =
    deps.loadDomainData ?? ((domain: AnyDomain, dataDir: string) => catalog.load(domain, { dataDir }));
  const loaded = new Map<string, DomainData>();
  const domainData = (name: string): DomainData => {
    let data = loaded.get(name);
    if (!data) {
      const domain = deps.domains.get(name);
      if (!domain) throw new UnknownNameError("domain", name, [...deps.domains.keys()]);
      data = loadDomainData(domain, deps.dataDir);
      loaded.set(name, data);
    }
    return data;
  };
  const domainDataIfAny = (name: string): DomainData | undefined => {
    try {
      return domainData(name);
    } catch {
      return undefined;
    }
  };
  // A domain's detail depends only on its data, which never changes: built once (telecom's thousands
  // of task summaries and scenario chips would otherwise be recomputed on every page load).
  const details = new Map<string, { detail: DomainDetail; tasks: TaskSummary[] }>();
  const domainDetail = (name: string): { detail: DomainDetail; tasks: TaskSummary[] } => {
    let built = details.get(name);
    if (!built) {
      const data = domainData(name);
      const domain = data.domain;
      const tasks = data.tasks.map(taskSummary);
      built = {
        tasks,
        detail: {
          name: domain.name,
          description: domain.description,
          policy: data.policy,
          tools: toolSummaries(domain, data.config),
          tasks: tasks.slice(0, FIRST_TASKS),
          taskCount: tasks.length,
          scenarios: scenarioChips(domain, data.tasks),
          hasUserTools: (domain.user?.tools.length ?? 0) > 0,
          hasDocuments: data.hasDocuments,
        },
      };
      details.set(name, built);
    }
    return built;
  };
  const views = deps.store ? new RunViews(deps.store, domainDataIfAny, now) : undefined;
  const explorer = (): RunViews => {
    if (!views)
      throw new FeatureDisabledError("this server has no run store: start it with --store to browse runs");
    return views;
  };

  const clientKey = (_request: Request, c: Context): string => {
    if (deps.trustProxy) {
      const forwarded = c.req.header("X-Forwarded-For")?.split(",")[0]?.trim();
      if (forwarded) return forwarded;
    }
    try {
      return getConnInfo(c).remote.address ?? "unknown";
    } catch {
      return "unknown"; // in-process requests (tests) have no socket
    }
  };
  // Open event streams by client address; an entry lives only while its client holds a stream.
  const openStreams = new Map<string, number>();
  const pick = (role: "agent" | "user", offered: readonly string[], spec: string | undefined): string => {
    const chosen = spec ?? offered[0];
    if (chosen === undefined || !offered.includes(chosen))
      throw new ParticipantNotOfferedError(role, spec ?? "(default)", offered);
    return chosen;
  };

  const runs: RunServices = {
    list: () => ({ runs: explorer().list() }),
    importResults: (text, options) => explorer().importResults(text, options),
    detail: (runId) => explorer().detail(runId),
    rename: (runId, label) => explorer().rename(runId, label),
    remove: (runId) => explorer().remove(runId),
    simulation: (runId, key) => explorer().simulation(runId, key),
    modelCalls: (runId, key) => explorer().modelCalls(runId, key),
    compare: (a, b) => explorer().compare(a, b),
    search: (runId, query) => explorer().search(runId, query),
    notes: (runId, key) => explorer().notes(runId, key),
    addNote: (runId, key, note) => explorer().addNote(runId, key, note),
    removeNote: (runId, id) => explorer().removeNote(runId, id),
  };

  /** Start a conversation (or one that continues an earlier one's messages). */
  const begin = (
    request: StartConversationRequest,
    continues?: StartConversation["continues"],
  ): StartConversationResponse => {
    const budget = spend.budget();
    if (budget.exhausted && budget.capUsd !== null)
      throw new SpendCapReachedError(budget.capUsd, budget.resetsAt, now());
    const data = domainData(request.domain);
    const task = request.taskId !== undefined ? data.task(request.taskId) : undefined;
    const agentSpec = pick("agent", deps.participants.agents, request.agent);
    const userSpec =
      request.mode === "simulate" ? pick("user", deps.participants.users, request.user) : undefined;
    // The scripted customer only follows the gold agent: with any other it would stall to the step limit.
    if (userSpec?.startsWith("scripted:") && !agentSpec.startsWith("scripted:"))
      throw new ConfigError(
        `the scripted customer ${userSpec} only follows scripted:gold's gold path and cannot answer ${agentSpec}: ` +
          "start passk serve with --user-llm <provider>:<model>, or play the customer yourself",
      );
    const perturbed = requestedPerturbations(request.perturbations ?? []);
    // The keyless playground replays the gold path at a person's pace, the customer speaking as one.
    const replay =
      deps.scriptedReplay !== undefined &&
      userSpec?.startsWith("scripted:") === true &&
      agentSpec.startsWith("scripted:")
        ? deps.scriptedReplay
        : undefined;
    const agent = deps.participants.agentFor(agentSpec);
    const user = userSpec !== undefined ? deps.participants.customerFor(userSpec) : undefined;
    const estimate =
      limits.conversationEstimateUsd ??
      (budget.capUsd !== null ? budget.capUsd / Math.max(1, limits.maxActive) : 0);
    const reservation = spend.reserve(estimate);
    if (reservation === null) throw new SpendCapCommittedError(budget.capUsd ?? 0, estimate);
    let started: ReturnType<typeof hub.start>;
    try {
      started = hub.start({
        reservation,
        mode: request.mode,
        data,
        ...(task ? { task } : {}),
        agent: replay ? pacedAgent(agent, replay) : agent,
        agentSpec,
        ...(user !== undefined && userSpec !== undefined
          ? { user: replay ? replayCustomer(user, replay, data.domain.name) : user, userSpec }
          : {}),
        ...(perturbed.length > 0 ? { perturbations: perturbed } : {}),
        ...(continues ? { continues } : {}),
      });
    } catch (error) {
      reservation.release();
      throw error;
    }
    const { conversation, ownerToken } = started;
    return {
      conversationId: conversation.id,
      domain: data.domain.name,
      taskId: task?.id ?? null,
      eventsUrl: `/api/conversations/${encodeURIComponent(conversation.id)}/events`,
      ownerToken,
    };
  };

  return {
    info: (): ServerInfo => ({
      domains: [...deps.domains.values()].flatMap((domain) => {
        const data = domainDataIfAny(domain.name);
        if (!data) return [];
        return [
          {
            name: domain.name,
            description: domain.description,
            taskCount: data.tasks.length,
            hasUserTools: (domain.user?.tools.length ?? 0) > 0,
          },
        ];
      }),
      agents: [...deps.participants.agents],
      users: [...deps.participants.users],
      budget: spend.budget(),
      explorer: views !== undefined,
      scriptedReplay: deps.scriptedReplay ? { ...SCRIPTED_REPLAY_NOTICE } : null,
      perturbations: perturbations.names.map((name) => {
        const definition = perturbations.get(name)!;
        return {
          name,
          version: definition.version,
          kind: definition.kind,
          summary: definition.summary,
        };
      }),
    }),
    budget: () => spend.budget(),
    domain: (name) => domainDetail(name).detail,
    taskPage: (name, offset, limit): TaskPage => {
      const { tasks } = domainDetail(name);
      return { offset, total: tasks.length, tasks: tasks.slice(offset, offset + limit) };
    },
    task: (domain, taskId): TaskDetail => ({ domain, task: domainData(domain).task(taskId) }),
    documents: (domain, query) => {
      const data = domainData(domain);
      if (!data.hasDocuments)
        throw new PasskError("documents_not_found", `domain ${domain} has no documents to search`);
      return { query, hits: data.searchDocuments(query) };
    },
    agentScore: (domain, agent, user) => {
      domainData(domain); // an unknown domain is a 404 naming the known ones
      return views ? views.agentScore(domain, agent, user) : { agent, domain, run: null };
    },
    conversations: {
      start: (request): StartConversationResponse => begin(request),
      continue: (id, ownerToken): StartConversationResponse => {
        const earlier = hub.continuable(id, ownerToken);
        const { meta } = earlier;
        return begin(
          {
            domain: meta.domain,
            mode: meta.mode,
            ...(meta.taskId !== null ? { taskId: meta.taskId } : {}),
            agent: meta.agent,
            ...(meta.user !== null ? { user: meta.user } : {}),
            ...(earlier.perturbations.length > 0 ? { perturbations: [...earlier.perturbations] } : {}),
          },
          { conversationId: meta.id, messages: earlier.messages },
        );
      },
      feed: (id) => hub.feed(id),
      detail: (id) => hub.detail(id),
      list: (limit, ids) => ({ conversations: hub.list(limit, ids) }),
      say: (id, turn, ownerToken) => hub.say(id, turn, ownerToken),
      end: (id, ownerToken) => hub.end(id, ownerToken),
    },
    runs,
    voiceRuns: createVoiceRunServices(deps.voiceRuns ?? []),
    redact: (text) => redactSecrets(text, secrets),
    rateLimited: rateLimit({
      max: limits.rateLimitMax,
      windowMs: limits.rateLimitWindowMs,
      clientKey,
      now,
    }),
    maxUploadBytes: limits.maxUploadBytes,
    importLimited: rateLimit({ max: limits.importsPerHour, windowMs: 3_600_000, clientKey, now }),
    streamSlots: {
      max: limits.maxStreamsPerClient,
      take: (c) => {
        const key = clientKey(c.req.raw, c);
        const open = openStreams.get(key) ?? 0;
        if (open >= limits.maxStreamsPerClient) return undefined;
        openStreams.set(key, open + 1);
        let released = false;
        return () => {
          if (released) return;
          released = true;
          const left = (openStreams.get(key) ?? 1) - 1;
          if (left > 0) openStreams.set(key, left);
          else openStreams.delete(key);
        };
      },
    },
  };
}
