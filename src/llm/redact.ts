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
  let result = text;
  // Longest first, so that a secret containing another is removed whole.
  const known = secrets
    .filter((secret): secret is string => typeof secret === "string" && secret.length >= 4)
    .sort((a, b) => b.length - a.length);
  for (const secret of known) result = result.split(secret).join(REDACTED);
  for (const pattern of CREDENTIAL_PATTERNS) {
    result = result.replace(pattern, (_match, prefix: unknown) =>
      typeof prefix === "string" ? `${prefix}${REDACTED}` : REDACTED,
    );
  }
  return result;
}
