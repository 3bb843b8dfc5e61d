import { PasskError } from "../core/errors.js";

/** A conversation id the server does not hold (never started, or ended long ago and forgotten). */
export class ConversationNotFoundError extends PasskError {
  constructor(readonly conversationId: string) {
    super(
      "conversation_not_found",
      `conversation "${conversationId}" is not known to this server (it may have ended and been forgotten); start a new one`,
    );
    this.name = "ConversationNotFoundError";
  }
}

/** A request that does not fit the conversation's state (typing while the agent answers, or after the end). */
export class ConversationStateError extends PasskError {
  constructor(
    code: "not_awaiting_customer" | "conversation_ended" | "not_human_mode" | "cannot_continue",
    message: string,
  ) {
    super(code, message);
    this.name = "ConversationStateError";
  }
}

/** A request to control a conversation (type, end) without its owner's token: viewing needs only the link. */
export class NotConversationOwnerError extends PasskError {
  constructor(conversationId: string, tokenGiven: boolean) {
    super(
      "not_conversation_owner",
      `${tokenGiven ? "the owner token is not this conversation's" : "no owner token was sent"}: only the browser that started conversation "${conversationId}" can type in it or end it (its link lets anyone watch it); send its token in the Passk-Owner-Token header, or start your own`,
    );
    this.name = "NotConversationOwnerError";
  }
}

export class RunNotFoundError extends PasskError {
  constructor(readonly runId: string) {
    super("run_not_found", `run "${runId}" is not in the store: it was deleted, or the link is wrong`);
    this.name = "RunNotFoundError";
  }
}

/** The same results file was imported before: importing it again would count its trials twice. */
export class DuplicateImportError extends PasskError {
  constructor(
    readonly runId: string,
    runName: string,
  ) {
    super(
      "duplicate_import",
      `this file was imported before, as run "${runName}"; import it again only if you want two copies of its simulations`,
    );
    this.name = "DuplicateImportError";
  }
}

export class SimulationNotFoundError extends PasskError {
  constructor(runId: string, key: string) {
    super("simulation_not_found", `run "${runId}" has no simulation ${key} (domain/task/trial)`);
    this.name = "SimulationNotFoundError";
  }
}

export class NoteNotFoundError extends PasskError {
  constructor(runId: string, id: number) {
    super("note_not_found", `run "${runId}" has no note ${id} (deleted already?)`);
    this.name = "NoteNotFoundError";
  }
}

/** The browser asked for an agent or user model the server does not offer. */
export class ParticipantNotOfferedError extends PasskError {
  constructor(role: "agent" | "user", spec: string, offered: readonly string[]) {
    super(
      "participant_not_offered",
      `${role} "${spec}" is not offered by this server (offered: ${offered.join(", ") || "none"}); pick one of these`,
    );
    this.name = "ParticipantNotOfferedError";
  }
}

/** A refusal that tells the client when to try again (`Retry-After`, seconds). */
export interface RetryAfter {
  readonly retryAfterSeconds: number;
}

export class SpendCapReachedError extends PasskError implements RetryAfter {
  readonly retryAfterSeconds: number;
  constructor(capUsd: number, resetsAt: string, now: Date = new Date()) {
    super(
      "spend_cap_reached",
      `Today's spending cap of $${capUsd.toFixed(2)} is reached: new conversations are refused until ${resetsAt} ` +
        "(conversations running when it was reached were stopped).",
    );
    this.name = "SpendCapReachedError";
    this.retryAfterSeconds = Math.max(1, Math.ceil((Date.parse(resetsAt) - now.getTime()) / 1000));
  }
}

export class SpendCapCommittedError extends PasskError implements RetryAfter {
  readonly retryAfterSeconds = 60;
  constructor(capUsd: number, estimateUsd: number) {
    super(
      "spend_cap_committed",
      `Today's spending cap of $${capUsd.toFixed(2)} is committed to the conversations already running ` +
        `(each may cost up to $${estimateUsd.toFixed(4)}); try again when one of them ends.`,
    );
    this.name = "SpendCapCommittedError";
  }
}

export class ServerBusyError extends PasskError implements RetryAfter {
  /** A conversation takes seconds to minutes; ten seconds is a polite first wait. */
  readonly retryAfterSeconds = 10;
  constructor(max: number) {
    super(
      "server_busy",
      `The server is running its maximum of ${max} conversations; try again when one has finished.`,
    );
    this.name = "ServerBusyError";
  }
}

export class FeatureDisabledError extends PasskError {
  constructor(message: string) {
    super("feature_disabled", message);
    this.name = "FeatureDisabledError";
  }
}

const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  invalid_input_file: 400,
  invalid_request: 400,
  config: 400,
  participant_not_offered: 400,
  not_conversation_owner: 403,
  not_awaiting_customer: 409,
  conversation_ended: 409,
  not_human_mode: 409,
  cannot_continue: 409,
  duplicate_import: 409,
  episode_not_started: 409,
  episode_over: 409,
  not_awaiting_agent: 409,
  gym_sessions_full: 503,
  rate_limited: 429,
  spend_cap_reached: 429,
  spend_cap_committed: 429,
  server_busy: 503,
  feature_disabled: 404,
  infrastructure_error: 502,
  store_not_found: 500,
  not_a_store: 500,
  store_version: 500,
};

/** The HTTP status that fits a PasskError: unknown names and missing things 404, bad input 400. */
export function httpStatusOf(error: PasskError): number {
  const status = STATUS_BY_CODE[error.code];
  if (status !== undefined) return status;
  if (error.code.startsWith("unknown_") || error.code.endsWith("_not_found")) return 404;
  return 400;
}
