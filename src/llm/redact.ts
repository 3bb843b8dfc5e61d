/** What replaces a secret in any text passk shows or stores. */
export const REDACTED = "[redacted]";

/**
 * Shapes of credentials that may reach an error text even when passk did not hand them out itself — a
 * proxy echoing a header back, for instance. Known secrets are removed first; these catch the rest.
 */
const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /\b((?:x-api-key|api[-_]?key|authorization)["']?\s*[:=]\s*["']?)[A-Za-z0-9._~+/=-]{8,}/gi,
];

/**
 * Removes every given secret (and anything shaped like a bearer token or an `sk-` key) from a text,
 * so that error messages, events and results never carry an API key.
 *
 * @example
 * redactSecrets("401: bad key sk-abc123456789", ["sk-abc123456789"]) // "401: bad key [redacted]"
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let result = redactKnownSecrets(text, secrets);
  for (const pattern of CREDENTIAL_PATTERNS) {
    result = result.replace(pattern, (_match, prefix: unknown) =>
      typeof prefix === "string" ? `${prefix}${REDACTED}` : REDACTED,
    );
  }
  return result;
}

/** Secrets worth looking for, longest first (so that a secret containing another is removed whole). */
function knownSecrets(secrets: readonly (string | undefined)[]): string[] {
  return secrets
    .filter((secret): secret is string => typeof secret === "string" && secret.length >= 4)
    .sort((a, b) => b.length - a.length);
}

/**
 * Removes the given secrets, by value, from a text — and nothing else: what a model or an agent says
 * is graded, so only a configured key or token (never a look-alike) may be taken out of it.
 */
export function redactKnownSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let result = text;
  for (const secret of knownSecrets(secrets))
    if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  return result;
}

/**
 * Removes the given secrets, by value, from every string and key inside `value` (tool-call arguments),
 * in place, so that the holders — and the Python float marks on them — stay the same objects. Walks
 * iteratively: arguments nested thousands deep cannot exhaust the stack. Returns `value`.
 */
export function redactKnownSecretsDeep<T>(value: T, secrets: readonly (string | undefined)[]): T {
  const known = knownSecrets(secrets);
  if (known.length === 0) return value;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = record[key];
      const clean = typeof child === "string" ? redactKnownSecrets(child, known) : child;
      if (!Array.isArray(node) && known.some((secret) => key.includes(secret))) {
        delete record[key];
        record[redactKnownSecrets(key, known)] = clean;
      } else if (clean !== child) record[key] = clean;
      if (typeof child === "object" && child !== null) stack.push(child);
    }
  }
  return value;
}

/** Query parameters whose values are credentials (`?api-key=…`, `?token=…`, `?sig=…`). */
const SECRET_PARAMETER = /key|token|secret|sig|signature|password|passwd|auth|credential/i;

/**
 * The credentials a base URL carries: its user name and password (`https://user:pass@host`) and the
 * values of credential-like query parameters. They are secrets like an API key.
 */
export function urlCredentials(url: string): string[] {
  if (!URL.canParse(url)) return [];
  const parsed = new URL(url);
  const found = [parsed.username, parsed.password].map((v) => decodeURIComponent(v));
  for (const [name, value] of parsed.searchParams) if (SECRET_PARAMETER.test(name)) found.push(value);
  return found.filter((v) => v.length > 0);
}

/**
 * A base URL fit to store or print: credentials replaced by {@link REDACTED}.
 * @example redactUrl("https://me:pw@proxy/v1?api-key=abc") // "https://[redacted]:[redacted]@proxy/v1?api-key=[redacted]"
 */
export function redactUrl(url: string): string {
  if (!URL.canParse(url) || urlCredentials(url).length === 0) return url;
  const parsed = new URL(url);
  if (parsed.username) parsed.username = REDACTED;
  if (parsed.password) parsed.password = REDACTED;
  for (const name of [...parsed.searchParams.keys()])
    if (SECRET_PARAMETER.test(name)) parsed.searchParams.set(name, REDACTED);
  return decodeURIComponent(parsed.href);
}

/** Whether a stored base URL had its credentials taken out (a resume must be given it again). */
export function isRedactedUrl(url: string): boolean {
  return url.includes(REDACTED);
}
