import { bm25Scores, buildBm25Index, type Bm25Index } from "./bm25.js";
import { policyPassages, type PolicyPassage } from "./policy-passages.js";

/** The policy passage an action exercises, as found by {@link PolicyLinker}. */
export interface PolicyLink {
  /** The passage's index among {@link policyPassages}' passages, and its character range. */
  passage: number;
  start: number;
  end: number;
  /** Its headings, outermost first, joined by " › " ("Modify flight", "Domain Basic › Reservation"). */
  section: string;
  /** The BM25 score of the passage for the query: at least {@link POLICY_LINK_THRESHOLD}. */
  score: number;
}

/** What a tool call is matched on: the tool's name, its description and its argument names. */
export interface LinkedTool {
  name: string;
  description?: string | undefined;
  argumentNames?: readonly string[] | undefined;
}

/**
 * The score below which no link is given: a wrong link is worse than none. Measured on the agent tools
 * of airline, retail, telecom and banking_knowledge (test/policy-links.test.ts): the tools linked right
 * score 8.0–44.9 (airline's writes 16.8–20.4, retail's 13.6–28.1); those the policy never speaks of
 * (calculate, list_all_airports, the flight searches, get_order_details) and airline's send_certificate,
 * whose best passage (the booking rules' travel certificates) would be wrong, score under 8.
 */
export const POLICY_LINK_THRESHOLD = 8;

// Words that carry no rule: function words, and words every passage of a service policy uses.
const STOPWORDS = new Set(
  (
    "a an the and or but if then than so of to in on at by for from with without as is are was were be been " +
    "being am do does did done has have had having it its this that these those there here which who whom " +
    "whose what when where why how all any each every both either neither some such nor only own same " +
    "too very can could should would will shall may might must i me my we our us you your yours he him " +
    "his she her they them their one also into about over under again further once just more most other " +
    "up down out off please sorry thank thanks unfortunately afraid let know able get got given give use used " +
    "tool tools call calls called first new list"
  ).split(" "),
);

/** A crude English stem, enough for BM25 to meet `cancelled`, `cancellation` and `cancel` as one term. */
export function stem(word: string): string {
  if (word.length <= 4 || /\d/.test(word)) return word;
  let stemmed = word;
  for (const [suffix, replacement] of [
    ["ations", ""],
    ["ation", ""],
    ["ated", ""],
    ["ates", ""],
    ["ate", ""],
    ["ments", ""],
    ["ment", ""],
    ["ings", ""],
    ["ing", ""],
    ["ies", "y"],
    ["ied", "y"],
    ["ed", ""],
    ["es", ""],
    ["s", ""],
  ] as const) {
    if (stemmed.endsWith(suffix) && stemmed.length - suffix.length >= 3) {
      if (suffix === "s" && stemmed.endsWith("ss")) break;
      stemmed = stemmed.slice(0, stemmed.length - suffix.length) + replacement;
      break;
    }
  }
  if (stemmed.length > 4 && stemmed.endsWith("e")) stemmed = stemmed.slice(0, -1);
  if (stemmed.length > 3 && /([bcdfglmnprt])\1$/.test(stemmed)) stemmed = stemmed.slice(0, -1);
  return stemmed;
}

/** The terms of a text: lower-cased words (split at anything but letters and digits, so `user_id` is two), stemmed, stopwords dropped. */
export function policyTerms(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/\b(can[’']?t|cannot|won[’']t|isn[’']t|aren[’']t|doesn[’']t|don[’']t|unable)\b/g, "not")
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1 && !STOPWORDS.has(word))
    .map(stem);
}

/** Words by which an assistant's reply declines: not being able or allowed to do what was asked. */
const DECLINES =
  /\b(can ?not|can[’']t|unable to|not (be )?(able|allowed|permitted|possible|eligible)|(isn|aren|wasn|won|doesn|don)[’']t (be )?(able|allowed|permitted|possible|eligible|allow|permit|qualify)|(does|do) not (allow|permit|qualify)|against (the|our) policy|not something I can|I must (decline|deny))\b/i;

/** Whether an assistant's reply (one without a tool call) declines what was asked. */
export function isRefusal(text: string): boolean {
  return DECLINES.test(text);
}

/** How much a tool's description and argument names weigh beside its name. */
const CONTEXT_WEIGHT = 0.3;

/** How much the heading a passage sits right under weighs beside its own text. */
const HEADING_WEIGHT = 2;

/** How many times a tool name's first word (its verb: book, cancel, modify) counts. */
const VERB_WEIGHT = 3;

/** A policy's passages indexed for linking actions to them. */
export interface PolicyLinker {
  readonly passages: readonly PolicyPassage[];
  /** The passage a tool call exercises, or null when none scores {@link POLICY_LINK_THRESHOLD}. */
  linkToolCall(tool: LinkedTool): PolicyLink | null;
  /** The passage an assistant's refusal rests on; null when the text declines nothing or nothing scores enough. */
  linkRefusal(text: string): PolicyLink | null;
}

/**
 * Indexes a policy for linking actions, with BM25 ({@link buildBm25Index}, over {@link policyTerms}): one
 * index of the passages' texts, one of the distinct headings; a passage scores its text's score plus
 * twice the score of the heading it sits right under. A tool call is matched on its name (`update_` read
 * as `modify_`; its first word, when some heading has it, counted three times against the headings:
 * the verb picks the section, the text the passage), with its description and argument names at 0.3;
 * a refusal on its words. No model: the same policy and action always give the same link.
 *
 * @example
 * createPolicyLinker(airlinePolicy).linkToolCall({ name: "cancel_reservation" })?.section
 * // "Airline Agent Policy › Cancel flight"
 */
export function createPolicyLinker(policy: string): PolicyLinker {
  const passages = policyPassages(policy);
  const textIndex: Bm25Index = buildBm25Index(
    passages.map((passage) => policyTerms(policy.slice(passage.start, passage.end))),
  );
  // Each heading once: a word that names one section of many weighs more than one every section has.
  const headings = [...new Set(passages.flatMap((passage) => passage.headings))];
  const headingIndex = buildBm25Index(headings.map(policyTerms));
  const headingPaths = passages.map((passage) => passage.headings.map((h) => headings.indexOf(h)));
  /** Each passage's score: its text's for `terms`, plus its headings' for `headingTerms` weighed by HEADING_WEIGHT. */
  const scores = (terms: readonly string[], headingTerms: readonly string[] = terms): Float64Array => {
    const text = bm25Scores(textIndex, terms);
    const byHeading = bm25Scores(headingIndex, headingTerms);
    headingPaths.forEach((path, i) => {
      const leaf = path[path.length - 1];
      if (leaf !== undefined) text[i]! += HEADING_WEIGHT * byHeading[leaf]!;
    });
    return text;
  };
  /** Whether a word names a section: "cancel" in "Cancel flight". */
  const inHeading = (term: string) => headingIndex.postings.has(term);
  const best = (scores: Float64Array): PolicyLink | null => {
    if (passages.length === 0) return null;
    let top = 0;
    for (let i = 1; i < scores.length; i++) if (scores[i]! > scores[top]!) top = i;
    const score = scores[top]!;
    if (!(score >= POLICY_LINK_THRESHOLD)) return null;
    const passage = passages[top]!;
    return {
      passage: passage.index,
      start: passage.start,
      end: passage.end,
      section: passage.headings.join(" › "),
      score,
    };
  };
  return {
    passages,
    linkToolCall: (tool) => {
      // The name says what is done; the description and the arguments only tip the balance.
      // A verb that names a section (book, cancel, modify) picks the section; within it, the text decides.
      const name = policyTerms(tool.name.replace(/^update_/, "modify_"));
      const verb = name[0];
      const args = policyTerms((tool.argumentNames ?? []).join(" "));
      const total = scores(
        name,
        verb !== undefined && inHeading(verb)
          ? [...Array<string>(VERB_WEIGHT - 1).fill(verb), ...name]
          : name,
      );
      const context = scores([...policyTerms(tool.description ?? ""), ...args]);
      for (let i = 0; i < total.length; i++) total[i]! += CONTEXT_WEIGHT * context[i]!;
      return best(total);
    },
    linkRefusal: (text) => (isRefusal(text) ? best(scores(policyTerms(text))) : null),
  };
}
