import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { MiddlewareHandler } from "hono";

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

// The app loads only its own scripts; inline styles are needed by React's style props and ECharts.
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'";

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * Serves the built web app from `root`: files by path, `index.html` for every other page path (the
 * app routes in the browser), hashed assets cached for a year. Paths never leave `root`.
 */
export function serveStatic(root: string): MiddlewareHandler {
  const base = path.resolve(root);
  return async (c) => {
    let relative: string;
    try {
      relative = decodeURIComponent(c.req.path);
    } catch {
      return c.text("Bad path", 400);
    }
    const candidate = path.resolve(base, `.${path.posix.normalize(`/${relative}`)}`);
    const inside = candidate === base || candidate.startsWith(base + path.sep);
    let file = inside && (await isFile(candidate)) ? candidate : undefined;
    if (!file) {
      // A missing asset is a real 404; any other path is a page of the single-page app.
      if (relative.startsWith("/assets/") || path.extname(relative) !== "") return c.text("Not found", 404);
      file = path.join(base, "index.html");
      if (!(await isFile(file))) {
        return c.text("The web app is not built: run `npm run build` (it runs `vite build`).", 503);
      }
    }
    const body = await readFile(file);
    c.header("Content-Type", TYPES[path.extname(file)] ?? "application/octet-stream");
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    if (file.endsWith(".html")) {
      c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
      c.header("Cache-Control", "no-cache");
    } else if (relative.startsWith("/assets/")) {
      c.header("Cache-Control", "public, max-age=31536000, immutable");
    }
    return c.body(body);
  };
}
