import type { Message, ToolCall } from "../core/message.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
import type { PolicyLinkNote } from "./api-schemas.js";
import { createPolicyLinker, type PolicyLink } from "../knowledge/policy-links.js";
import { toolSummaries } from "./domain-views.js";

/** What a conversation's actions are linked with: the domain policy's passages, indexed once per domain. */
export interface ConversationPolicyLinks {
  /** The passage an agent's tool call exercises; undefined for the customer's calls and weak matches. */
  toolCall(call: ToolCall): PolicyLink | undefined;
  /** The passage an agent's reply without a tool call declines on; undefined otherwise. */
  message(message: Message): PolicyLink | undefined;
}

const cache = new WeakMap<DomainData, ConversationPolicyLinks>();

/** The policy links of a domain's conversations (its agent policy, as the playground shows it). */
export function policyLinksFor(data: DomainData): ConversationPolicyLinks {
  let links = cache.get(data);
  if (!links) {
    const linker = createPolicyLinker(data.policy);
    const tools = new Map(
      toolSummaries(data.domain, data.config)
        .filter((tool) => tool.side === "agent")
        .map((tool) => [tool.name, tool]),
    );
    const byTool = new Map<string, PolicyLink | null>();
    links = {
      toolCall: (call) => {
        if (call.requestor === "user") return undefined;
        let link = byTool.get(call.name);
        if (link === undefined) {
          const tool = tools.get(call.name);
          const properties = (tool?.parameters as { properties?: Record<string, unknown> } | undefined)
            ?.properties;
          link = linker.linkToolCall({
            name: call.name,
            description: tool?.description,
            argumentNames: Object.keys(properties ?? call.arguments),
          });
          byTool.set(call.name, link);
        }
        return link ?? undefined;
      },
      message: (message) => {
        if (message.role !== "assistant" || (message.tool_calls?.length ?? 0) > 0 || !message.content)
          return undefined;
        return linker.linkRefusal(message.content) ?? undefined;
      },
    };
    cache.set(data, links);
  }
  return links;
}

/** The longest passage text a note carries; longer ones are cut at a word. */
const EXCERPT_CHARACTERS = 600;

/**
 * The policy links of a recorded conversation, for the explorer: per message, each agent tool call's and
 * a refusal's passage, with the passage's text (the simulation page shows no policy beside it).
 */
export function simulationPolicyLinks(data: DomainData, messages: readonly Message[]): PolicyLinkNote[] {
  const links = policyLinksFor(data);
  const note = (messageIndex: number, by: string, link: PolicyLink | undefined): PolicyLinkNote[] => {
    if (!link) return [];
    let excerpt = data.policy.slice(link.start, link.end);
    if (excerpt.length > EXCERPT_CHARACTERS) {
      const cut = excerpt.lastIndexOf(" ", EXCERPT_CHARACTERS);
      excerpt = `${excerpt.slice(0, cut > 0 ? cut : EXCERPT_CHARACTERS)}…`;
    }
    return [{ messageIndex, by, link, excerpt }];
  };
  return messages.flatMap((message, i) => [
    ...(message.role === "assistant" ? (message.tool_calls ?? []) : []).flatMap((call) =>
      note(i, call.name, links.toolCall(call)),
    ),
    ...note(i, "the agent's refusal", links.message(message)),
  ]);
}
