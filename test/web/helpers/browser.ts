import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { wavFile } from "../../../src/voice/speech-models.js";

export const REPO = path.resolve(import.meta.dirname, "..", "..", "..");
export const WEB_DIST = path.join(REPO, "web", "dist");
export const ARTIFACTS = path.join(REPO, "test-artifacts");
export const CHROMIUM = process.env.PASSK_CHROMIUM ?? "/usr/bin/chromium";

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}

/**
 * Build the web app when web/dist is missing or older than its sources (npm run build does it too):
 * the served app, then the classic-script build static exports copy (web/dist/export).
 */
export function ensureWebBuilt(): void {
  const built = [path.join(WEB_DIST, "index.html"), path.join(WEB_DIST, "export", "passk-app.js")];
  const sources = Math.max(newest(path.join(REPO, "web", "src")), newest(path.join(REPO, "src", "server")));
  if (built.every((file) => existsSync(file) && statSync(file).mtimeMs >= sources)) return;
  for (const config of ["web/vite.config.ts", "web/vite.export.config.ts"])
    execFileSync("npx", ["vite", "build", "--config", config, "--logLevel", "warn"], {
      cwd: REPO,
      stdio: "inherit",
    });
}

/**
 * Debian's Chromium, headless, with a fresh profile (`--user-data-dir`, which Playwright takes as the
 * persistent context's folder) that is removed on close; `extraArgs` add switches (e.g. host rules).
 */
export async function launchChromium(
  extraArgs: readonly string[] = [],
): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(path.join(tmpdir(), "passk-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Chromium whose fake microphone plays `samples` (written as `wav` at `sampleRate`; Chromium loops the
 * file) and which plays audio without a user gesture, for the voice playground's caller tests.
 */
export async function launchChromiumWithMicrophone(
  wav: string,
  samples: Int16Array,
  sampleRate: number,
): Promise<Awaited<ReturnType<typeof launchChromium>>> {
  writeFileSync(wav, wavFile({ samples, sampleRate }));
  return launchChromium([
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    `--use-file-for-fake-audio-capture=${wav}`,
    "--autoplay-policy=no-user-gesture-required",
  ]);
}
