import { useCallback, useEffect, useReducer, useRef } from "react";
import {
  OkResponseSchema,
  SequencedEventSchema,
  StartConversationResponseSchema,
  type SequencedEvent,
  type StartConversationRequest,
} from "../../../src/server/api-schemas.js";
import { ApiRequestError, ConnectionError, answer, api, describeError } from "../api.js";
import { readServerSentEvents } from "./event-stream.js";
import { ownerTokenOf, rememberOwned } from "./owned-conversations.js";

/** The header a conversation's owner token travels in (the server's OWNER_TOKEN_HEADER). */
const OWNER_TOKEN_HEADER = "Passk-Owner-Token";

export type ConversationStatus = "idle" | "starting" | "running" | "awaiting-customer" | "ended";

export interface ConversationState {
  conversationId: string | null;
  status: ConversationStatus;
  events: SequencedEvent[];
  error: string | null;
  /** `reconnecting`: the event stream broke (the server stopped, or the network); retrying. */
  connection: "connected" | "reconnecting";
  /** Failed attempts in a row while reconnecting. */
  attempts: number;
  /** Why the page ended the conversation itself (the server lost it, or could not be reached). */
  lost: string | null;
}

type Action =
  | { type: "reset" }
  | { type: "starting" }
  | { type: "started"; conversationId: string }
  | { type: "event"; event: SequencedEvent }
  | { type: "error"; message: string }
  /** The server took what the person sent; `since`: the last event seen when it was sent. */
  | { type: "sent"; since: number }
  | { type: "connected" }
  | { type: "reconnecting" }
  | { type: "lost"; message: string };

const initial: ConversationState = {
  conversationId: null,
  status: "idle",
  events: [],
  error: null,
  connection: "connected",
  attempts: 0,
  lost: null,
};

function reduce(state: ConversationState, action: Action): ConversationState {
  switch (action.type) {
    case "reset":
      return initial;
    case "starting":
      return { ...initial, status: "starting" };
    case "started":
      return { ...initial, conversationId: action.conversationId, status: "running" };
    case "event": {
      // Reconnects may repeat events; keep each sequence number once.
      if (state.events.length > 0 && action.event.seq <= state.events[state.events.length - 1]!.seq)
        return state;
      const events = [...state.events, action.event];
      const status: ConversationStatus =
        action.event.type === "conversation-end"
          ? "ended"
          : action.event.type === "awaiting-customer"
            ? "awaiting-customer"
            : action.event.type === "message" && action.event.message.role === "user"
              ? "running"
              : state.status;
      return { ...state, events, status, connection: "connected", attempts: 0 };
    }
    case "sent": {
      // The stream can outrun the POST's answer: the agent may already have replied and be waiting
      // for the person again. Then that stands; otherwise the agent is at work.
      const answered = state.events.some((e) => e.seq > action.since && e.type === "awaiting-customer");
      const status = state.status === "ended" || answered ? state.status : "running";
      return { ...state, status, error: null };
    }
    case "error":
      return { ...state, error: action.message, status: state.status === "starting" ? "idle" : state.status };
    case "connected":
      return { ...state, connection: "connected", attempts: 0 };
    case "reconnecting":
      return { ...state, connection: "reconnecting", attempts: state.attempts + 1 };
    case "lost":
      return { ...state, status: "ended", connection: "connected", attempts: 0, lost: action.message };
  }
}

/** Wait before the n-th reconnection attempt: 0.5 s, 1 s, 2 s, then every 3 s. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(3000, 500 * 2 ** attempt);
}

/** A stream that says nothing for this long (the server sends a keep-alive every 15 s) is dead. */
const SILENCE_MS = 40_000;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

function ownerHeaders(conversationId: string): Record<string, string> {
  const token = ownerTokenOf(conversationId);
  return token === undefined ? {} : { [OWNER_TOKEN_HEADER]: token };
}

const LOST_FROM_SERVER =
  "The server does not have this conversation (it restarted without keeping it, or the link is wrong). Anything said so far stays on this page; start a new conversation.";

/**
 * One playground conversation: starts it (or opens one by id), follows its server-sent events and
 * reconnects when the stream breaks (resuming after the last event it has, so nothing is shown twice),
 * sends what the person types, and ends it. Whatever happens to the server, the conversation ends in
 * a state where the page's controls work: ended by the server, interrupted, or lost.
 */
export function useConversation() {
  const [state, dispatch] = useReducer(reduce, initial);
  const following = useRef<AbortController | null>(null);
  const lastSeq = useRef(-1);

  const stop = () => {
    following.current?.abort();
    following.current = null;
  };
  useEffect(() => stop, []);

  /** Follow a conversation's events from after `lastSeq` until it ends, reconnecting as needed. */
  const follow = useCallback(async (conversationId: string, abort: AbortController) => {
    const { signal } = abort;
    let attempt = 0;
    while (!signal.aborted) {
      const attemptAbort = new AbortController();
      const onAbort = () => attemptAbort.abort();
      signal.addEventListener("abort", onAbort, { once: true });
      let watchdog: ReturnType<typeof setTimeout> | undefined;
      const alive = () => {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => attemptAbort.abort(), SILENCE_MS);
      };
      try {
        alive();
        const response = await api.conversations[":conversationId"].events.$get(
          { param: { conversationId }, query: { after: String(lastSeq.current) } },
          { init: { signal: attemptAbort.signal }, headers: { Accept: "text/event-stream" } },
        );
        if (response.status === 404) {
          dispatch({ type: "lost", message: LOST_FROM_SERVER });
          return;
        }
        if (response.status >= 400 && response.status < 500) {
          const text = await response.text();
          dispatch({ type: "lost", message: `The server refused the conversation's events: ${text}` });
          return;
        }
        if (!response.ok || !response.body) throw new Error(`the server answered ${response.status}`);
        dispatch({ type: "connected" });
        attempt = 0;
        for await (const message of readServerSentEvents(response.body, alive)) {
          let data: unknown;
          try {
            data = JSON.parse(message.data);
          } catch {
            data = undefined;
          }
          const parsed = SequencedEventSchema.safeParse(data);
          if (!parsed.success) {
            dispatch({ type: "error", message: `unexpected event from the server: ${parsed.error.message}` });
            continue;
          }
          lastSeq.current = Math.max(lastSeq.current, parsed.data.seq);
          dispatch({ type: "event", event: parsed.data });
          if (parsed.data.type === "conversation-end") return;
        }
        // The stream closed before the conversation ended: the server went away mid-conversation.
      } catch {
        // A broken connection, a dead stream or an aborted attempt: retry below unless we were stopped.
      } finally {
        clearTimeout(watchdog);
        signal.removeEventListener("abort", onAbort);
      }
      if (signal.aborted) return;
      dispatch({ type: "reconnecting" });
      await sleep(reconnectDelayMs(attempt++), signal);
    }
  }, []);

  const open = useCallback(
    (conversationId: string) => {
      stop();
      const abort = new AbortController();
      following.current = abort;
      lastSeq.current = -1;
      dispatch({ type: "started", conversationId });
      void follow(conversationId, abort);
    },
    [follow],
  );

  /** Start a conversation; resolves to its id (null when the server refused, with the reason in `error`). */
  const start = useCallback(
    async (
      request: StartConversationRequest,
    ): Promise<{ conversationId: string; domain: string; taskId: string | null } | null> => {
      stop();
      dispatch({ type: "starting" });
      try {
        const started = await answer(
          api.conversations.$post({ json: request }),
          StartConversationResponseSchema,
        );
        rememberOwned(started.conversationId, started.ownerToken);
        open(started.conversationId);
        return started;
      } catch (error) {
        dispatch({ type: "error", message: describeError(error) });
        return null;
      }
    },
    [open],
  );

  /**
   * Continue the stopped or interrupted conversation `earlierId` in a new one (its owner only); on a
   * refusal the earlier one stays shown, with the server's reason in `error`.
   */
  const resume = useCallback(
    async (
      earlierId: string,
    ): Promise<{ conversationId: string; domain: string; taskId: string | null } | null> => {
      try {
        const started = await answer(
          api.conversations[":conversationId"].continue.$post(
            { param: { conversationId: earlierId } },
            { headers: ownerHeaders(earlierId) },
          ),
          StartConversationResponseSchema,
        );
        stop();
        rememberOwned(started.conversationId, started.ownerToken);
        open(started.conversationId);
        return started;
      } catch (error) {
        dispatch({ type: "error", message: describeError(error) });
        return null;
      }
    },
    [open],
  );

  /** The page gives up on the conversation (the server cannot be reached, or no longer has it). */
  const abandon = useCallback((message: string) => {
    stop();
    dispatch({ type: "lost", message });
  }, []);

  const conversationId = state.conversationId;

  /** Send the person's turn; true once the server took it (the draft may then be cleared). */
  const say = useCallback(
    async (
      turn: { content: string } | { toolCall: { name: string; arguments: Record<string, unknown> } },
    ): Promise<boolean> => {
      if (!conversationId) return false;
      const since = lastSeq.current;
      try {
        await answer(
          api.conversations[":conversationId"].messages.$post(
            { param: { conversationId }, json: turn },
            { headers: ownerHeaders(conversationId) },
          ),
          OkResponseSchema,
        );
        dispatch({ type: "sent", since });
        return true;
      } catch (error) {
        if (error instanceof ApiRequestError && error.code === "conversation_not_found")
          abandon(LOST_FROM_SERVER);
        else if (error instanceof ConnectionError)
          dispatch({
            type: "error",
            message:
              "Your message was not sent: the server cannot be reached. It is kept below; send it again once the connection is back.",
          });
        else dispatch({ type: "error", message: describeError(error) });
        return false;
      }
    },
    [conversationId, abandon],
  );

  /** End the conversation: the server closes and grades it (human mode) or stops it (simulation). */
  const end = useCallback(async () => {
    if (!conversationId) return;
    try {
      await answer(
        api.conversations[":conversationId"].end.$post(
          { param: { conversationId } },
          { headers: ownerHeaders(conversationId) },
        ),
        OkResponseSchema,
      );
    } catch (error) {
      if (error instanceof ConnectionError)
        abandon("Ended here: the server cannot be reached, so this conversation was not graded.");
      else if (error instanceof ApiRequestError && error.code === "conversation_not_found")
        abandon(LOST_FROM_SERVER);
      else dispatch({ type: "error", message: describeError(error) });
    }
  }, [conversationId, abandon]);

  const reset = useCallback(() => {
    stop();
    dispatch({ type: "reset" });
  }, []);

  /** Whether this browser started the conversation (it may type in it and end it), not only watches it. */
  const owner = conversationId !== null && ownerTokenOf(conversationId) !== undefined;

  return { state, owner, start, resume, open, say, end, reset, abandon };
}
