import type { Message } from "./message.js";

/** One natural-language assertion judged against a conversation. */
export interface NlAssertionVerdict {
  nl_assertion: string;
  met: boolean;
  justification: string;
}

/**
 * Judges natural-language assertions ("the agent refused to cancel") on a conversation — τ²'s
 * NL_ASSERTION component. The LLM judge implements it; tests use a scripted one.
 */
export interface Judge {
  judge(input: {
    assertions: readonly string[];
    messages: readonly Message[];
    /** Told the cost of each model call the judge makes (USD; null when the model's price is unknown). */
    onCost?: (cost: number | null) => void;
  }): Promise<NlAssertionVerdict[]>;
}
