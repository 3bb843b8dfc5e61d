/** One server-sent event: its id (the event's sequence number) and its data. */
export interface ServerSentEvent {
  id: string | null;
  data: string;
}

/**
 * The events of a `text/event-stream` body, as they arrive. Comment lines (keep-alives) are skipped
 * but count as life: `onActivity` runs on every chunk, so a caller can tell a quiet stream from a
 * dead one.
 */
export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
  onActivity: () => void = () => {},
): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onActivity();
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let id: string | null = null;
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
          else if (line.startsWith("id:")) id = line.slice(3).trim();
        }
        if (data.length > 0) yield { id, data: data.join("\n") };
      }
    }
  } finally {
    reader.releaseLock();
  }
}
