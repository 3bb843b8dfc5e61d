import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ConfigError, UnknownNameError } from "../core/errors.js";
import { retrievalConfig, type RetrievalConfig } from "./configs.js";
import type { KnowledgeBase, KnowledgeDocument } from "./knowledge-base.js";

/** What the `golden_retrieval` policy needs of a task: its id and τ²'s `required_documents`. */
export interface PolicyTask {
  id: string;
  required_documents?: readonly string[] | null;
}

export interface BankingPolicyOptions {
  /** The domain's `prompts/` folder (templates, and `components/`). */
  promptsDir: string;
  /** A retrieval config or its name (aliases accepted). */
  config: RetrievalConfig | string;
  kb: KnowledgeBase;
  /** Required for `golden_retrieval`, whose policy inlines the task's required documents. */
  task?: PolicyTask;
}

const COMPONENT = /\{\{component:([A-Za-z0-9_-]+)\}\}/g;
const texts = new Map<string, string>();

/**
 * The agent policy of the banking_knowledge domain under a retrieval config, exactly as τ² builds it:
 * `prompts/<template>` with each `{{component:NAME}}` replaced by `prompts/components/NAME.md`, then
 * the config's own part — the whole KB (`full_kb`: `## {title}\n\n{content}` per document, in KB order,
 * joined by `\n\n---\n\n`), the task's required documents (`golden_retrieval`, same layout, in the task's
 * order), or the dense-search paragraph (`alltools`, `alltools-qwen`). Files are read once per process.
 *
 * @example
 * const policy = bankingPolicy({ promptsDir, config: "bm25", kb });
 */
export function bankingPolicy(options: BankingPolicyOptions): string {
  const config = typeof options.config === "string" ? retrievalConfig(options.config) : options.config;
  const { promptsDir, kb, task } = options;
  const template = readPromptFile(
    path.join(promptsDir, config.promptTemplate),
    `the ${config.name} policy template`,
  );
  const withComponents = template.replace(COMPONENT, (_whole, name: string) =>
    readPromptFile(path.join(promptsDir, "components", `${name}.md`), `the policy component "${name}"`),
  );
  switch (config.policy) {
    case "full_kb":
      return substitute(withComponents, "{{full_knowledge_base}}", inlineDocuments(kb.documents));
    case "golden_retrieval": {
      if (task === undefined)
        throw new ConfigError(
          "the golden_retrieval policy is built per task from its required_documents; pass the task.",
        );
      const documents = (task.required_documents ?? []).map((id) => {
        const document = kb.document(id);
        if (!document)
          throw new UnknownNameError(
            "document",
            id,
            kb.documents.map((known) => known.id),
            `Task "${task.id}" names it in required_documents; ` +
              `fix the task or the documents folder (${kb.source}).`,
          );
        return document;
      });
      return substitute(withComponents, "{{required_documents}}", inlineDocuments(documents));
    }
    case "standard": {
      const dense = config.kbSearchDense?.embedder;
      if (dense === undefined) return withComponents;
      return substitute(
        withComponents,
        "{{all_tools_dense_instructions}}",
        `The \`KB_search_dense\` tool uses **${dense.serviceLabel}** ` +
          `with embedding model \`${dense.model}\` for dense retrieval.`,
      );
    }
  }
}

/** Documents as τ² inlines them into a policy. */
export function inlineDocuments(documents: readonly KnowledgeDocument[]): string {
  return documents.map((document) => `## ${document.title}\n\n${document.content}`).join("\n\n---\n\n");
}

function substitute(text: string, placeholder: string, value: string): string {
  return text.split(placeholder).join(value);
}

function readPromptFile(file: string, what: string): string {
  const resolved = path.resolve(file);
  let text = texts.get(resolved);
  if (text === undefined) {
    if (!existsSync(resolved))
      throw new ConfigError(`${what} (${resolved}) is missing; run \`passk data pull\` or fix --data.`);
    text = readFileSync(resolved, "utf8");
    texts.set(resolved, text);
  }
  return text;
}
