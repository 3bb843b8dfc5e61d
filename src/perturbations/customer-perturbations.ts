import { z } from "zod";
import type { UserScenario } from "../core/task.js";
import { definePerturbation, type PerturbationDefinition } from "./perturbation.js";
import { rateParam } from "./tool-faults.js";

/** The scenario with one more paragraph of task instructions (or persona) for the simulated customer. */
export function withCustomerInstructions(
  scenario: UserScenario,
  extra: { instructions?: string; persona?: string },
): UserScenario {
  const next: UserScenario = { ...scenario };
  if (extra.persona !== undefined)
    next.persona = scenario.persona ? `${scenario.persona}\n${extra.persona}` : extra.persona;
  if (extra.instructions !== undefined) {
    const instructions = scenario.instructions;
    next.instructions =
      typeof instructions === "string"
        ? `${instructions}\n\n${extra.instructions}`
        : { ...instructions, task_instructions: `${instructions.task_instructions}\n${extra.instructions}` };
  }
  return next;
}

const RateOnlySchema = z.strictObject({ rate: rateParam(1) });

/** A customer behaviour given as instructions, applied to a share `rate` of conversations (default all). */
function customerBehaviour(options: {
  name: string;
  summary: string;
  instructions: string;
}): PerturbationDefinition<z.infer<typeof RateOnlySchema>> {
  return definePerturbation({
    name: options.name,
    version: 1,
    kind: "customer",
    summary: options.summary,
    params: RateOnlySchema,
    effects: (params, conversation) => ({
      customerScenario(scenario) {
        if (conversation.random() >= params.rate) return undefined;
        return {
          scenario: withCustomerInstructions(scenario, { instructions: options.instructions }),
          mark: { perturbation: conversation.id, effect: "customer_instructions" },
        };
      },
    }),
  });
}

export const omission = customerBehaviour({
  name: "omission",
  summary: "The customer holds back one detail the agent needs until it has been asked for twice.",
  instructions:
    "Hold back one detail the agent will need from you (the first identifying detail you know: an id, a name, a " +
    "number). Do not offer it. The first time the agent asks for it, answer without giving it (you do not have it " +
    "at hand, or you talk about something else); give it only when the agent asks for it a second time.",
});

export const falseClaim = customerBehaviour({
  name: "false-claim",
  summary: "The customer says they already did part of the request themselves, which is not true.",
  instructions:
    "Early on, tell the agent that you already took care of part of your request yourself (you made the change " +
    "online, or someone already did it for you on an earlier call). It is not true. If the agent checks and tells " +
    "you it was not done, accept that and carry on with your request.",
});

export const changeOfMind = customerBehaviour({
  name: "change-of-mind",
  summary: "Midway, the customer wavers and asks about another option, then returns to the original request.",
  instructions:
    "Midway through the conversation, before the agent has completed your request, say you are no longer sure and " +
    "ask about a different option. After the agent answers, go back to exactly what these instructions ask for: " +
    "what you finally request must be what the instructions say.",
});

/** How each persona trait writes, in passk's words. */
export const PERSONA_TRAITS = {
  impatient:
    "You are in a hurry and easily annoyed: you press the agent to be quick and complain about waiting or " +
    "repeating yourself, but you still answer what you are asked.",
  terse: "You write as little as you can: a few words per message, no greetings, only what you are asked.",
  verbose:
    "You write long messages full of background and side stories that do not matter, with the details that do " +
    "matter somewhere in the middle.",
  "non-native":
    "English is not your first language: you write short, simple sentences with grammar mistakes, now and then " +
    "misread an idiom, and sometimes reach for a word in your own language.",
} as const;
type Trait = keyof typeof PERSONA_TRAITS;
const TRAITS = Object.keys(PERSONA_TRAITS) as Trait[];

export const persona = definePerturbation({
  name: "persona",
  version: 1,
  kind: "customer",
  summary: `The customer has a trait: ${TRAITS.join(", ")} (trait=…, default impatient).`,
  params: z.strictObject({
    rate: rateParam(1),
    trait: z.enum(TRAITS, { error: () => `trait must be one of ${TRAITS.join(", ")}` }).default("impatient"),
  }),
  effects: (params, conversation) => ({
    customerScenario(scenario) {
      if (conversation.random() >= params.rate) return undefined;
      return {
        scenario: withCustomerInstructions(scenario, { persona: PERSONA_TRAITS[params.trait] }),
        mark: { perturbation: conversation.id, effect: "customer_instructions", detail: params.trait },
      };
    },
  }),
});
