import path from "node:path";

/** The built web app shipped with passk (`web/dist` beside `dist/`). */
export function defaultWebRoot(): string {
  return path.resolve(import.meta.dirname, "..", "..", "web", "dist");
}

/**
 * Values of the environment's credentials (any `*_API_KEY`, `*_KEY`, `*_TOKEN`, `*_SECRET` of 8
 * characters or more), which the server and its exports must never send anywhere.
 */
export function secretValues(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([name, value]) => /(_API_KEY|_KEY|_TOKEN|_SECRET)$/i.test(name) && value && value.length >= 8)
    .map(([, value]) => value!);
}
