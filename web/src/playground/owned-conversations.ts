// The conversations this browser started, with their owner tokens (the capability to type in them and
// end them). The server gives a token once, to the starter; a shared link carries only the id, so
// whoever opens it can watch, not control.

const KEY = "passk-owned-conversations";
/** The most recent ones kept (older ones stay reachable by their link, to watch). */
const KEEP = 50;

type Owned = Array<{ id: string; token: string }>;

function read(): Owned {
  try {
    const value: unknown = JSON.parse(globalThis.localStorage?.getItem(KEY) ?? "[]");
    return Array.isArray(value)
      ? value.filter(
          (v): v is { id: string; token: string } =>
            typeof v === "object" && v !== null && typeof v.id === "string" && typeof v.token === "string",
        )
      : [];
  } catch {
    return [];
  }
}

/** Remember that this browser started `id` (most recent first). */
export function rememberOwned(id: string, token: string): void {
  const owned = [{ id, token }, ...read().filter((o) => o.id !== id)].slice(0, KEEP);
  try {
    globalThis.localStorage?.setItem(KEY, JSON.stringify(owned));
  } catch {
    // Storage full or disabled: the conversation can still be controlled from this page until it closes.
  }
}

/** The owner token of `id`, if this browser started it. */
export function ownerTokenOf(id: string): string | undefined {
  return read().find((o) => o.id === id)?.token;
}

/** The ids of the conversations this browser started, most recent first. */
export function ownedConversationIds(): string[] {
  return read().map((o) => o.id);
}
