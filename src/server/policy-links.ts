import type { Message, ToolCall } from "../core/message.js";
import type { DomainData } from "../formats/tau2/domain-data.js";
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
