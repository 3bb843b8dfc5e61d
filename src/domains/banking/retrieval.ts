import { z } from "zod";
import { defineTool, type Tool, type ToolContext } from "../../env/tool.js";
import type { BankingDb } from "./db.js";
import { servicesOf, type BankingServices } from "./services.js";

// The agent's knowledge-base tools: which a retrieval config offers (before the base tools, in the
// reference's order) and what they do, over the retrieval library (src/knowledge/).

/** The retrieval configs, with the knowledge-base tools each offers (in the order the model sees them). */
export const RETRIEVAL_TOOLS_BY_CONFIG: Readonly<Record<string, readonly string[]>> = {
  no_knowledge: [],
  full_kb: [],
  golden_retrieval: [],
  qwen_embeddings_grep: ["KB_search", "grep"],
  openai_embeddings_grep: ["KB_search", "grep"],
  qwen_embeddings_reranker_grep: ["KB_search", "grep"],
  openai_embeddings_reranker_grep: ["KB_search", "grep"],
  bm25_grep: ["KB_search", "grep"],
  bm25_reranker_grep: ["KB_search", "grep"],
  qwen_embeddings: ["KB_search"],
  openai_embeddings: ["KB_search"],
  qwen_embeddings_reranker: ["KB_search"],
  openai_embeddings_reranker: ["KB_search"],
  bm25: ["KB_search"],
  bm25_reranker: ["KB_search"],
  grep_only: ["grep"],
  terminal_use: ["shell"],
  terminal_use_write: ["shell"],
  alltools: ["KB_search_bm25", "KB_search_dense", "shell"],
  "alltools-qwen": ["KB_search_bm25", "KB_search_dense", "shell"],
};

export const RETRIEVAL_CONFIG_NAMES = Object.keys(RETRIEVAL_TOOLS_BY_CONFIG);

/** The services of a world, or the reason its knowledge-base tools cannot run. */
function services(context: ToolContext): BankingServices {
  const found = servicesOf(context);
  if (!found)
    throw new Error(
      "this world has no knowledge base (build it with DomainData, which loads the retrieval config)",
    );
  return found;
}

export const kbSearch = defineTool({
  name: "KB_search",
  description: "Search the knowledge base for documents relevant to a query.",
  kind: "read",
  className: "KBSearchMixin",
  parameters: z.object({ query: z.string().describe("What to search for.") }),
  run(_db: BankingDb, { query }, context) {
    return services(context).kbSearch(query);
  },
});

export const grep = defineTool({
  name: "grep",
  description:
    "Find knowledge-base documents matching a regular expression, most matches first, with their full text.",
  kind: "read",
  className: "GrepMixin",
  parameters: z.object({
    pattern: z.string().describe("A regular expression, such as 'credit.*card' or 'fee|charge'."),
  }),
  run(_db: BankingDb, { pattern }, context) {
    return services(context).grep(pattern);
  },
});

export const shell = defineTool({
  name: "shell",
  description: "Run a shell command (ls, cat, grep, head…) in the knowledge base's folder.",
  kind: "read",
  className: "ShellMixin",
  parameters: z.object({
    command: z.string().describe('The command, such as "ls -la" or "grep -r \'credit card\' .".'),
  }),
  run(_db: BankingDb, { command }, context) {
    return services(context).shell(command, context.session);
  },
});

export const kbSearchBm25 = defineTool({
  name: "KB_search_bm25",
  description: "Search the knowledge base with BM25 (keyword) retrieval.",
  kind: "read",
  className: "KBSearchBm25AllToolsMixin",
  parameters: z.object({
    query: z.string().describe("What to search for."),
    k: z.int().default(10).describe("How many documents at most (default 10)."),
  }),
  run(_db: BankingDb, { query, k }, context) {
    return services(context).kbSearch(query, k ?? 10, "bm25");
  },
});

export const kbSearchDense = defineTool({
  name: "KB_search_dense",
  description: "Search the knowledge base with dense (embedding) retrieval.",
  kind: "read",
  className: "KBSearchDenseAllToolsMixin",
  parameters: z.object({
    query: z.string().describe("What to search for."),
    k: z.int().default(10).describe("How many documents at most (default 10)."),
  }),
  run(_db: BankingDb, { query, k }, context) {
    return services(context).kbSearch(query, k ?? 10, "dense");
  },
});

const RETRIEVAL_TOOLS: ReadonlyMap<string, Tool<BankingDb>> = new Map(
  [kbSearch, grep, shell, kbSearchBm25, kbSearchDense].map((tool) => [tool.name, tool]),
);

const toolsByConfig = new Map<string, readonly Tool<BankingDb>[]>();

/** The knowledge-base tools of a config followed by `base`, the list the agent's model sees. */
export function agentToolsFor(
  config: string | undefined,
  base: readonly Tool<BankingDb>[],
): readonly Tool<BankingDb>[] {
  const key = config ?? "";
  let tools = toolsByConfig.get(key);
  if (!tools) {
    const names = config === undefined ? [] : (RETRIEVAL_TOOLS_BY_CONFIG[config] ?? []);
    tools = [...names.map((name) => RETRIEVAL_TOOLS.get(name)!), ...base];
    toolsByConfig.set(key, tools);
  }
  return tools;
}
