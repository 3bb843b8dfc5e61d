import { Hono } from "hono";
import { streamSSE, type SSEStreamingApi } from "hono/streaming";
import {
  ConversationListQuerySchema,
  ConversationParamSchema,
  CustomerMessageRequestSchema,
  EventsQuerySchema,
  StartConversationRequestSchema,
} from "../api-schemas.js";
import type { ApiServices } from "../api-services.js";
import { limitJsonBody, requireJson, validate } from "./request-checks.js";

/** The header that carries a conversation's owner token (the capability to control it). */
export const OWNER_TOKEN_HEADER = "Passk-Owner-Token";

/** How long an idle event stream waits before a comment line keeps proxies from closing it. */
const KEEP_ALIVE_MS = 15_000;

/** Playground conversations: start, follow over server-sent events, type, end; and the kept ones. */
export function conversationRoutes(services: ApiServices) {
  const conversations = services.conversations;
  return new Hono()
    .post(
      "/",
      services.rateLimited,
      limitJsonBody,
      requireJson,
      validate("json", StartConversationRequestSchema),
      (c) => c.json(conversations.start(c.req.valid("json")), 201),
    )
    .get("/", validate("query", ConversationListQuerySchema), (c) => {
      const query = c.req.valid("query");
      return c.json(conversations.list(query.limit ?? 50, query.ids ?? []));
    })
    .get("/:conversationId", validate("param", ConversationParamSchema), (c) =>
      c.json(conversations.detail(c.req.valid("param").conversationId)),
    )
    .get(
      "/:conversationId/events",
      validate("param", ConversationParamSchema),
      validate("query", EventsQuerySchema),
      (c) => {
        const feed = conversations.feed(c.req.valid("param").conversationId);
        const lastEventId = Number(c.req.header("Last-Event-ID"));
        const after = Number.isInteger(lastEventId) ? lastEventId : (c.req.valid("query").after ?? -1);
        const release = services.streamSlots.take(c);
        if (!release)
          return c.json(
            {
              code: "too_many_streams",
              message: `Too many open event streams from your address: at most ${services.streamSlots.max} at once. Close other playground tabs and try again.`,
            },
            429,
          );
        const follow = async (stream: SSEStreamingApi): Promise<void> => {
          const closed = new AbortController();
          stream.onAbort(() => closed.abort());
          // Events are numbered from 0; a reader resuming after `after` gets the rest, in order.
          let next = feed.events.findIndex((event) => event.seq > after);
          if (next < 0) next = feed.events.length;
          while (!closed.signal.aborted) {
            while (next < feed.events.length) {
              const event = feed.events[next++]!;
              await stream.writeSSE({ id: String(event.seq), data: services.redact(JSON.stringify(event)) });
            }
            if (feed.ended) break;
            const heartbeat = new AbortController();
            const timer = setTimeout(() => heartbeat.abort(), KEEP_ALIVE_MS);
            await feed.waitForEvents(next, AbortSignal.any([closed.signal, heartbeat.signal]));
            clearTimeout(timer);
            if (heartbeat.signal.aborted && !closed.signal.aborted) await stream.write(": keep-alive\n\n");
          }
        };
        return streamSSE(c, async (stream) => {
          try {
            await follow(stream);
          } finally {
            release();
          }
        });
      },
    )
    .post(
      "/:conversationId/messages",
      services.rateLimited,
      validate("param", ConversationParamSchema),
      limitJsonBody,
      requireJson,
      validate("json", CustomerMessageRequestSchema),
      (c) => {
        const turn = c.req.valid("json");
        const said = turn.content ?? turn.toolCall;
        if (said !== undefined)
          conversations.say(c.req.valid("param").conversationId, said, c.req.header(OWNER_TOKEN_HEADER));
        return c.json({ ok: true as const });
      },
    )
    .post("/:conversationId/end", validate("param", ConversationParamSchema), (c) => {
      conversations.end(c.req.valid("param").conversationId, c.req.header(OWNER_TOKEN_HEADER));
      return c.json({ ok: true as const });
    })
    .post(
      "/:conversationId/continue",
      services.rateLimited,
      validate("param", ConversationParamSchema),
      (c) =>
        c.json(
          conversations.continue(c.req.valid("param").conversationId, c.req.header(OWNER_TOKEN_HEADER)),
          201,
        ),
    );
}
