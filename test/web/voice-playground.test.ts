import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page, WebSocket as PageSocket } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { voiceServerMessageSchema, type VoiceTickMessage } from "../../src/server/voice-call-protocol.js";
import { speakTestSpeech } from "../../src/testing/speech-codec.js";
import { mulawEncode, readWavFile, resample } from "../../src/voice/audio.js";
import { tau2RecordedUtterance } from "../../src/testing/tau2-fixtures.js";
import { ensureWebBuilt, launchChromiumWithMicrophone, type launchChromium } from "./helpers/browser.js";
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
  web = await startWebServer();
  browser = await launchChromiumWithMicrophone(path.join(dir, "utterance.wav"), samples, rate);
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

/**
 * What the microphone path captured (the page's tap) and what the browser sent for it: frames of one tick,
 * the server-side pipeline's encoding of those very samples, and on a clean line what the agent heard.
 */
async function expectSentIsPipelineEncoding(
  page: Page,
  seen: { sent: Buffer[]; ticks: VoiceTickMessage[] },
): Promise<void> {
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

      await expectSentIsPipelineEncoding(page, seen);
      await page.close();
    },
    TEST_TIMEOUT,
  );
});

// The same microphone path with a person's recorded voice (the reference's `check_order_12345.wav`,
// pulled by `passk data pull`): the mock agent has no speech recognition, so it answers when it hears the
// caller's turn end, saying honestly that it could not make out the words.
describe("voice playground with a recorded utterance", () => {
  let recorded: Awaited<ReturnType<typeof launchChromium>>;
  let utteranceSeconds: number;

  beforeAll(async () => {
    // Chromium's fake capture loops the file: half a second of silence, the utterance (16 kHz in the
    // recording, written at 48 kHz like the codec's file), then ten seconds for the agent's answer.
    const rate = 48_000;
    const said = readWavFile(tau2RecordedUtterance("check_order_12345"), rate);
    utteranceSeconds = said.length / rate;
    const samples = new Int16Array(said.length + rate * 10.5);
    samples.set(said, rate / 2);
    recorded = await launchChromiumWithMicrophone(path.join(dir, "check_order_12345-48k.wav"), samples, rate);
  }, 180_000);

  afterAll(async () => {
    await recorded?.close();
  });

  it.each(WIDTHS)(
    "at %i px: the mock agent answers the recorded caller's turn, and the bytes sent are the server's encoding",
    async (width) => {
      const page = await recorded.context.newPage();
      await page.setViewportSize({ width, height: width < 600 ? 844 : 800 });
      page.setDefaultTimeout(STATE_TIMEOUT);
      await page.goto(`${web.url}/#/voice`);
      await page.getByRole("button", { name: "Call", exact: true }).and(page.locator(":enabled")).waitFor();
      await page.evaluate('localStorage.setItem("passk.voice.tap", "1")');
      const seen = watchSockets(page);
      await page.getByLabel("Me (speak as the customer)").check();
      await page.getByRole("button", { name: "Call", exact: true }).click();
      await page.getByRole("group", { name: "Your microphone" }).waitFor();
      // The agent's answer, as the page shows it on the timeline.
      await expect
        .poll(() => page.locator('[data-testid="voice-segment"][data-side="agent"]').count(), {
          timeout: STATE_TIMEOUT,
        })
        .toBeGreaterThan(0);
      const answered = /I heard ([\d.]+) seconds of speech but could not make out the words/;
      await expect
        .poll(() => seen.ticks.map((t) => t.agentText).join(""), { timeout: STATE_TIMEOUT })
        .toMatch(answered);
      await page.screenshot({
        path: path.join(SCREENS, `voice-caller-recorded-${width}.png`),
        fullPage: true,
      });
      await page.getByRole("button", { name: "Hang up" }).click();
      await page.getByTestId("voice-verdict").waitFor();

      // The agent spoke only after a turn of the caller's speech had ended, and named its length.
      const firstAgent = seen.ticks.findIndex((t) => t.agentSpeech);
      const before = seen.ticks.slice(0, firstAgent);
      const lastCaller = before.findLastIndex((t) => t.userSpeech);
      expect(lastCaller).toBeGreaterThanOrEqual(0);
      expect(lastCaller).toBeLessThan(firstAgent - 1);
      let runStart = lastCaller;
      while (runStart > 0 && before[runStart - 1]!.userSpeech) runStart--;
      const runSeconds = (lastCaller - runStart + 1) * 0.2;
      const stated = Number(answered.exec(seen.ticks.map((t) => t.agentText).join(""))![1]);
      expect(stated).toBeGreaterThanOrEqual(0.3);
      expect(stated).toBeLessThanOrEqual(Math.min(runSeconds, utteranceSeconds) + 0.2);
      await expectSentIsPipelineEncoding(page, seen);
      await page.close();
    },
    TEST_TIMEOUT,
  );
});
