import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page, WebSocket as PageSocket } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { voiceServerMessageSchema, type VoiceTickMessage } from "../../src/server/voice-call-protocol.js";
import { speakTestSpeech } from "../../src/testing/speech-codec.js";
import { mulawEncode, resample } from "../../src/voice/audio.js";
import { wavFile } from "../../src/voice/speech-models.js";
import { ensureWebBuilt, launchChromium } from "./helpers/browser.js";
import { startWebServer, type WebServer } from "./helpers/web-server.js";

// The playground's voice mode in Chromium, keyless (the scripted demo): a simulated call plays and its
// timeline grows as it plays; with "Me" as the caller, Chromium's fake microphone plays a recorded
// utterance (test-codec speech synthesised here, 48 kHz WAV), the browser sends it tick by tick, the
// mock agent answers, and the bytes sent equal what the server's own functions make of the samples.

const SCREENS = process.env.PASSK_SCREENS ?? "/tmp/passk-screens";
const WIDTHS = [1280, 390] as const;
/** Waits on state, with room for a loaded two-core machine (a call's first seconds play in ~5 s here). */
const STATE_TIMEOUT = 60_000;
/** A test waits on a few such states (each took at most 15 s here under load). */
const TEST_TIMEOUT = 240_000;

let web: WebServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let dir: string;

beforeAll(async () => {
  ensureWebBuilt();
  mkdirSync(SCREENS, { recursive: true });
  dir = mkdtempSync(path.join(tmpdir(), "passk-voice-web-"));
  // What the fake microphone says: an utterance in the test speech codec, then silence (it loops).
  const rate = 48_000;
  const said = speakTestSpeech("Hi, I need to change my flight reservation please.", rate);
  const samples = new Int16Array(said.length + rate * 2);
  samples.set(said);
  const wav = path.join(dir, "utterance.wav");
  writeFileSync(wav, wavFile({ samples, sampleRate: rate }));
  web = await startWebServer();
  browser = await launchChromium([
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    `--use-file-for-fake-audio-capture=${wav}`,
    "--autoplay-policy=no-user-gesture-required",
  ]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await web?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function openVoicePage(width: number): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
  page.setDefaultTimeout(STATE_TIMEOUT);
  await page.goto(`${web.url}/#/voice`);
  await page.getByRole("button", { name: "Call", exact: true }).and(page.locator(":enabled")).waitFor();
  return page;
}

/** Seconds of the call shown (the status line's "… · 12.4 s"). */
async function shownSeconds(page: Page): Promise<number> {
  const text = (await page.getByTestId("voice-status").textContent()) ?? "";
  const match = /([\d.]+) s/.exec(text);
  return match ? Number(match[1]) : 0;
}

/** Every frame a page's voice socket sends (binary: the microphone's ticks) and receives (JSON). */
function watchSockets(page: Page): { sent: Buffer[]; ticks: VoiceTickMessage[] } {
  const seen = { sent: [] as Buffer[], ticks: [] as VoiceTickMessage[] };
  page.on("websocket", (socket: PageSocket) => {
    socket.on("framesent", ({ payload }) => {
      if (typeof payload !== "string") seen.sent.push(Buffer.from(payload));
    });
    socket.on("framereceived", ({ payload }) => {
      const message = voiceServerMessageSchema.parse(JSON.parse(String(payload)));
      if (message.type === "tick") seen.ticks.push(message);
    });
  });
  return seen;
}

describe.each(WIDTHS)("voice playground at %i px", (width) => {
  it(
    "plays a simulated call, its timeline growing while it plays",
    async () => {
      const page = await openVoicePage(width);
      expect(await page.getByTestId("voice-scripted-demo").textContent()).toContain("Scripted demo");
      await page.getByRole("button", { name: "Call", exact: true }).click();
      await page.getByTestId("voice-timeline").waitFor();
      // The lanes grow over time: the customer speaks first, the call's shown length keeps rising.
      await expect
        .poll(() => page.locator('[data-testid="voice-segment"][data-side="customer"]').count(), {
          timeout: STATE_TIMEOUT,
        })
        .toBeGreaterThan(0);
      const first = await shownSeconds(page);
      await expect.poll(() => shownSeconds(page), { timeout: STATE_TIMEOUT }).toBeGreaterThan(first + 1);
      const second = await shownSeconds(page);
      await expect.poll(() => shownSeconds(page), { timeout: STATE_TIMEOUT }).toBeGreaterThan(second + 1);
      // Still playing (not the whole call at once): no verdict yet, and the customer's line is named.
      expect(await page.getByTestId("voice-verdict").count()).toBe(0);
      expect(await page.getByTestId("voice-effects").textContent()).toContain("μ-law");
      await page.screenshot({ path: path.join(SCREENS, `voice-simulated-${width}.png`), fullPage: true });
      await page.close();
    },
    TEST_TIMEOUT,
  );

  it(
    "hears the microphone: the mock agent answers, and the bytes sent are the server's encoding of the samples",
    async () => {
      const page = await openVoicePage(width);
      await page.evaluate('localStorage.setItem("passk.voice.tap", "1")');
      const seen = watchSockets(page);
      await page.getByLabel("Me (speak as the customer)").check();
      await page.getByRole("button", { name: "Call", exact: true }).click();
      await page.getByRole("group", { name: "Your microphone" }).waitFor();
      // The agent answers what it heard: a tool call of the task's gold path, or speech.
      await expect
        .poll(
          async () =>
            (await page.getByTestId("voice-tool-call").count()) +
            (await page.locator('[data-testid="voice-segment"][data-side="agent"]').count()),
          { timeout: STATE_TIMEOUT },
        )
        .toBeGreaterThan(0);
      await page.screenshot({ path: path.join(SCREENS, `voice-caller-${width}.png`), fullPage: true });
      await page.getByRole("button", { name: "Hang up" }).click();
      await page.getByTestId("voice-verdict").waitFor();
      expect(await page.getByTestId("voice-verdict").textContent()).toMatch(/Reward|Not graded/);

      // What the microphone path captured, and what the browser sent for it.
      // (A string, evaluated in the page: its globals are the browser's.)
      const tap = (await page.evaluate(`(() => {
      const t = window.__passkVoiceTap;
      const total = t.captured.reduce((n, c) => n + c.length, 0);
      const all = new Int16Array(total);
      let at = 0;
      for (const chunk of t.captured) {
        all.set(chunk, at);
        at += chunk.length;
      }
      let binary = "";
      const bytes = new Uint8Array(all.buffer);
      for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
      return { rate: t.rate, pcm: btoa(binary) };
    })()`)) as { rate: number; pcm: string };
      const raw = Buffer.from(tap.pcm, "base64");
      const captured = new Int16Array(raw.buffer, raw.byteOffset, raw.byteLength / 2);
      const sent = Buffer.concat(seen.sent);
      expect(seen.sent.every((frame) => frame.length === 1600)).toBe(true);
      expect(sent.length).toBeGreaterThanOrEqual(1600 * 10);
      // The server-side pipeline (src/voice/audio.ts: resample to 8 kHz, G.711 μ-law) on the same samples.
      const expected = Buffer.from(mulawEncode(resample(captured, tap.rate, 8000)));
      expect(sent.equals(expected.subarray(0, sent.length))).toBe(true);
      expect(expected.length - sent.length).toBeLessThan(1600 + 400);
      // And on a clean line the agent heard exactly those bytes, tick by tick (the hang-up's own tick may
      // come before its audio did: the line is silent there).
      const heard = Buffer.concat(seen.ticks.slice(0, -1).map((t) => Buffer.from(t.user, "base64")));
      expect(heard.length).toBeGreaterThan(0);
      expect(heard.equals(sent.subarray(0, heard.length))).toBe(true);
      await page.close();
    },
    TEST_TIMEOUT,
  );
});
