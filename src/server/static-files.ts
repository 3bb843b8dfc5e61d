import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
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

const COMPRESSIBLE = new Set([".html", ".js", ".css", ".json", ".svg", ".txt"]);
const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** The encoding to answer with: brotli where the browser takes it, else gzip, else none. */
function encodingFor(accept: string | undefined): "br" | "gzip" | undefined {
  const offered = (accept ?? "")
    .toLowerCase()
    .split(",")
    .map((part) => part.trim())
    .filter((part) => !/;\s*q=0(\.0*)?$/.test(part))
    .map((part) => part.split(";")[0]);
  if (offered.includes("br")) return "br";
  if (offered.includes("gzip")) return "gzip";
  return undefined;
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * Serves the built web app from `root`: files by path, `index.html` for every other page path (the
 * app routes in the browser), hashed assets cached for a year, text compressed (brotli, else gzip)
 * where the browser accepts it. Paths never leave `root`.
 */
export function serveStatic(root: string): MiddlewareHandler {
  const base = path.resolve(root);
  // Compressed once per file version (path, size, time): hashed assets never change, index.html rarely.
  const compressed = new Map<string, Promise<Buffer>>();
  const compressedBody = async (file: string, encoding: "br" | "gzip", body: Buffer): Promise<Buffer> => {
    const info = await stat(file);
    const key = `${encoding}:${file}:${info.size}:${info.mtimeMs}`;
    let pending = compressed.get(key);
    if (!pending) {
      pending =
        encoding === "br"
          ? brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } })
          : gzipped(body, { level: 9 });
      compressed.set(key, pending);
    }
    return pending;
  };
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
    // Browsers ask for /favicon.ico on pages that name no icon (an API answer opened in a tab): the app's.
    if (!file && relative === "/favicon.ico" && (await isFile(path.join(base, "favicon.svg"))))
      return c.redirect("/favicon.svg", 301);
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
    const encoding = COMPRESSIBLE.has(path.extname(file))
      ? encodingFor(c.req.header("Accept-Encoding"))
      : undefined;
    c.header("Vary", "Accept-Encoding");
    if (encoding === undefined) return c.body(body);
    c.header("Content-Encoding", encoding);
    return c.body(new Uint8Array(await compressedBody(file, encoding, body)));
  };
}
