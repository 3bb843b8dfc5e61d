import { useCallback, useEffect, useReducer, useRef } from "react";
import {
  OkResponseSchema,
  SequencedEventSchema,
  StartConversationResponseSchema,
  type SequencedEvent,
  type StartConversationRequest,
} from "../../../src/server/api-schemas.js";
import { describeError, postJson } from "../api.js";

export type ConversationStatus = "idle" | "starting" | "running" | "awaiting-customer" | "ended";

export interface ConversationState {
  conversationId: string | null;
  status: ConversationStatus;
  events: SequencedEvent[];
  error: string | null;
}

type Action =
  | { type: "reset" }
  | { type: "starting" }
  | { type: "started"; conversationId: string }
  | { type: "event"; event: SequencedEvent }
  | { type: "error"; message: string }
  | { type: "sent" };

const initial: ConversationState = { conversationId: null, status: "idle", events: [], error: null };

function reduce(state: ConversationState, action: Action): ConversationState {
  switch (action.type) {
    case "reset":
      return initial;
    case "starting":
      return { ...initial, status: "starting" };
    case "started":
      return { ...state, conversationId: action.conversationId, status: "running" };
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
      return { ...state, events, status };
    }
    case "sent":
      return { ...state, status: "running", error: null };
    case "error":
      return { ...state, error: action.message, status: state.status === "starting" ? "idle" : state.status };
  }
}

/**
 * One playground conversation: starts it, follows its server-sent events (EventSource reconnects by
 * itself with Last-Event-ID), sends what the person types, and ends it.
 */
export function useConversation() {
  const [state, dispatch] = useReducer(reduce, initial);
  const source = useRef<EventSource | null>(null);

  const close = () => {
    source.current?.close();
    source.current = null;
  };
  useEffect(() => close, []);

  const start = useCallback(async (request: StartConversationRequest) => {
    close();
    dispatch({ type: "starting" });
    try {
      const started = await postJson("/api/conversations", request, StartConversationResponseSchema);
      dispatch({ type: "started", conversationId: started.conversationId });
      const events = new EventSource(started.eventsUrl);
      source.current = events;
      events.onerror = () => {
        // EventSource retries by itself; CLOSED means the server refused (e.g. it forgot the conversation).
        if (events.readyState === EventSource.CLOSED) {
          dispatch({
            type: "error",
            message: "lost the conversation's event stream; start a new conversation",
          });
          if (source.current === events) source.current = null;
        }
      };
      events.onmessage = (message: MessageEvent<string>) => {
        const parsed = SequencedEventSchema.safeParse(JSON.parse(message.data));
        if (!parsed.success) {
          dispatch({ type: "error", message: `unexpected event: ${parsed.error.message}` });
          return;
        }
        dispatch({ type: "event", event: parsed.data });
        if (parsed.data.type === "conversation-end") {
          events.close();
          if (source.current === events) source.current = null;
        }
      };
    } catch (error) {
      dispatch({ type: "error", message: describeError(error) });
    }
  }, []);

  const say = useCallback(
    async (
      turn: { content: string } | { toolCall: { name: string; arguments: Record<string, unknown> } },
    ) => {
      if (!state.conversationId) return;
      try {
        await postJson(`/api/conversations/${state.conversationId}/messages`, turn, OkResponseSchema);
        dispatch({ type: "sent" });
      } catch (error) {
        dispatch({ type: "error", message: describeError(error) });
      }
    },
    [state.conversationId],
  );

  const end = useCallback(async () => {
    if (!state.conversationId) return;
    try {
      await postJson(`/api/conversations/${state.conversationId}/end`, {}, OkResponseSchema);
    } catch (error) {
      dispatch({ type: "error", message: describeError(error) });
    }
  }, [state.conversationId]);

  const reset = useCallback(() => {
    close();
    dispatch({ type: "reset" });
  }, []);

  return { state, start, say, end, reset };
}
