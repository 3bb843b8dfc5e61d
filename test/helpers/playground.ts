import { expect } from "vitest";

/**
 * Start a playground conversation on a running `passk serve` (`base` is its URL) and read its event
 * stream until the conversation ends: the stream's text, for the test to read.
 */
export async function playConversation(base: string, request: Record<string, unknown>): Promise<string> {
  const started = await fetch(`${base}/api/conversations`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify(request),
  });
  expect(started.status).toBe(201);
  const { conversationId } = (await started.json()) as { conversationId: string };
  const events = await fetch(`${base}/api/conversations/${conversationId}/events?after=0`);
  const reader = events.body!.getReader();
  let stream = "";
  while (!stream.includes('"conversation-end"')) {
    const chunk = await reader.read();
    if (chunk.done) break;
    stream += new TextDecoder().decode(chunk.value);
  }
  await reader.cancel();
  return stream;
}
