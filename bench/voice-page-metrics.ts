// Memory and CPU of the voice playground's page during a long call (not a test): Chromium with a fake
// microphone (test-codec speech looping) calls the keyless scripted agent as "Me" for MINUTES (default
// 10) of call time; every minute the page's JS heap, DOM nodes and main-thread busy share (Chrome's
// Performance.getMetrics over CDP) are printed.
//   node --import tsx bench/voice-page-metrics.ts [minutes]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { speakTestSpeech } from "../src/testing/speech-codec.js";
import { wavFile } from "../src/voice/speech-models.js";
import { ensureWebBuilt, launchChromium } from "../test/web/helpers/browser.js";
import { startWebServer } from "../test/web/helpers/web-server.js";

const minutes = Number(process.argv[2] ?? 10);
ensureWebBuilt();
const dir = mkdtempSync(path.join(tmpdir(), "passk-voice-metrics-"));
const rate = 48_000;
const said = speakTestSpeech("Hi, I need to change my flight reservation please.", rate);
const samples = new Int16Array(said.length + rate * 2);
samples.set(said);
const wav = path.join(dir, "utterance.wav");
writeFileSync(wav, wavFile({ samples, sampleRate: rate }));
const web = await startWebServer();
const browser = await launchChromium([
  "--use-fake-ui-for-media-stream",
  "--use-fake-device-for-media-stream",
  `--use-file-for-fake-audio-capture=${wav}`,
  "--autoplay-policy=no-user-gesture-required",
]);
const page = await browser.context.newPage();
await page.setViewportSize({ width: 1280, height: 800 });
await page.goto(`${web.url}/#/voice`);
await page.getByRole("button", { name: "Call", exact: true }).and(page.locator(":enabled")).waitFor();
const cdp = await browser.context.newCDPSession(page);
await cdp.send("Performance.enable");
const metrics = async () => {
  const { metrics: list } = await cdp.send("Performance.getMetrics");
  return Object.fromEntries(list.map((m) => [m.name, m.value]));
};
await page.getByLabel("Me (speak as the customer)").check();
await page.getByRole("button", { name: "Call", exact: true }).click();
await page.getByRole("group", { name: "Your microphone" }).waitFor();
let last = await metrics();
let lastWall = performance.now();
console.log("minute  call-s  heap-MB  nodes  main-thread-busy  script-s-in-minute");
for (let minute = 1; minute <= minutes; minute++) {
  await new Promise((resolve) => setTimeout(resolve, 60_000));
  const now = await metrics();
  const wall = performance.now();
  const status = (await page.getByTestId("voice-status").textContent()) ?? "";
  const busy = (now.TaskDuration! - last.TaskDuration!) / ((wall - lastWall) / 1000);
  console.log(
    [
      minute,
      /([\d.]+) s/.exec(status)?.[1] ?? "?",
      (now.JSHeapUsedSize! / 1e6).toFixed(1),
      now.Nodes,
      `${(busy * 100).toFixed(1)}%`,
      (now.ScriptDuration! - last.ScriptDuration!).toFixed(2),
    ].join("  "),
  );
  last = now;
  lastWall = wall;
}
await browser.close();
await web.kill();
rmSync(dir, { recursive: true, force: true });
