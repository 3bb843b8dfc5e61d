import { defineDomain, type WorldContext } from "../../env/domain.js";
import type { Tool } from "../../env/tool.js";
import { AGENT_DISCOVERABLE_TOOLS } from "./agent-discoverable.js";
import { AGENT_CLASS, BASE_AGENT_TOOLS } from "./agent-tools.js";
import { BankingDbSchema, type BankingDb } from "./db.js";
import { diffBankingDb } from "./diff.js";
import { directTool } from "./discoverable.js";
import { agentToolsFor, RETRIEVAL_CONFIG_NAMES } from "./retrieval.js";
import {
  conversationBlocker,
  DEFAULT_RETRIEVAL_CONFIG,
  defaultRetrievalConfig,
  defaultRetrievalNote,
  retrievalConfig,
  RetrievalConfigKwargsSchema,
} from "../../knowledge/index.js";
import { BankingServices, TOOLS_FILE } from "./services.js";
import { USER_CLASS, USER_DISCOVERABLE_TOOLS, USER_TOOLS } from "./user-tools.js";

/** The customer's tools in a world: the task's `user_tools` (in toolkit order) when it names them. */
function userToolsFor(context: WorldContext): readonly Tool<BankingDb>[] {
  const wanted = context.task?.user_tools;
  if (wanted === undefined || wanted === null) return USER_TOOLS;
  return USER_TOOLS.filter((tool) => wanted.includes(tool.name));
}

/**
 * τ²-bench's banking_knowledge domain: customer service for a bank whose procedures live in a knowledge
 * base of 698 documents, many actions through "discoverable" tools the agent learns of there. The agent
 * and the customer work on one database; what the agent can search depends on the retrieval config.
 */
export const bankingKnowledgeDomain = defineDomain<BankingDb, BankingDb>({
  name: "banking_knowledge",
  description:
    "τ²-bench's knowledge-retrieval bank (Rho-Bank): the procedures are in a 698-document knowledge base the agent searches, many actions are discoverable tools; --retrieval-config picks how it searches.",
  agent: {
    className: AGENT_CLASS,
    db: BankingDbSchema,
    tools: BASE_AGENT_TOOLS,
    unlisted: AGENT_DISCOVERABLE_TOOLS.map((tool) => directTool(tool, AGENT_CLASS)),
    diff: diffBankingDb,
  },
  user: {
    className: USER_CLASS,
    db: BankingDbSchema,
    tools: USER_TOOLS,
    unlisted: USER_DISCOVERABLE_TOOLS.map((tool) => directTool(tool, USER_CLASS)),
    diff: diffBankingDb,
  },
  sharedDb: true,
  configs: {
    label: "retrieval config",
    recordKey: "retrieval_config",
    names: RETRIEVAL_CONFIG_NAMES,
    aliases: { AllTools: "alltools" },
    // The reference's default (alltools) when its embeddings key and sandbox are at hand; else bm25,
    // which runs anywhere (`defaultNote` says what is missing).
    default: DEFAULT_RETRIEVAL_CONFIG,
    defaultFor: (env) => defaultRetrievalConfig(env),
    defaultNote: (env) => defaultRetrievalNote(env),
    endConversation: (services, session) => {
      if (services instanceof BankingServices) services.closeSandbox(session);
    },
    services: (context) =>
      new BankingServices({
        folder: context.folder,
        config: context.config,
        upstreamDir: context.upstreamDir,
        embeddingCache: () => context.embeddingCache(),
        textEmbedder: context.textEmbedder,
        referenceDiscoverableTools: (file, className) => context.referenceDiscoverableTools(file, className),
        env: context.env,
        ...(context.configKwargs ? { kwargs: RetrievalConfigKwargsSchema.parse(context.configKwargs) } : {}),
        ...(context.toolModel ? { reranker: context.toolModel } : {}),
      }),
    conversationBlocker: (config, ready) => conversationBlocker(retrievalConfig(config), ready),
    searchDocuments: (services, query, limit) =>
      services instanceof BankingServices ? services.searchDocuments(query, limit) : [],
  },
  toolsFor(side, context) {
    return side === "agent" ? agentToolsFor(context.config, BASE_AGENT_TOOLS) : userToolsFor(context);
  },
  tau2: {
    agentTools: TOOLS_FILE,
    userTools: TOOLS_FILE,
    extraAgentToolkits: [
      "KBSearchMixin",
      "GrepMixin",
      "KBSearchBm25AllToolsMixin",
      "KBSearchDenseAllToolsMixin",
      "ShellMixin",
    ].map((className) => ({ file: "src/tau2/domains/banking_knowledge/retrieval_mixins.py", className })),
  },
  data: {
    folder: "banking_knowledge",
    db: "db.json",
    dbFormat: "python",
    tasks: "tasks/task_*.json",
    policy: (_read, context) => {
      if (!(context?.services instanceof BankingServices))
        throw new Error(
          "banking_knowledge's policy depends on its retrieval config: load it with DomainData",
        );
      return context.services.policy(context.task);
    },
  },
});
