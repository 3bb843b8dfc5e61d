import { startMockGeminiLiveServer } from "./src/testing/mock-gemini-live-server.js";
import { geminiLiveAgent } from "./src/voice/agents/gemini-live.js";
import { callerTicks, voiceView } from "./test/helpers/voice-caller.js";
const s = await startMockGeminiLiveServer({ brain: (e) => { console.log("brain", e); return e.kind === "heard" ? { say: "One moment." } : undefined; } });
const agent = geminiLiveAgent({ baseUrl: s.baseUrl, apiKey: s.apiKey });
await agent.start({ view: voiceView(), tickSeconds: 0.2, clock: "virtual" });
console.log("started");
const ticks = callerTicks([{ say: "Reservation XK42PQ please" }, { silence: 2 }]);
for (let i = 0; i < ticks.length; i++) { const t0 = Date.now(); const o = await agent.tick({ audio: ticks[i]!, toolResults: [] }); console.log(i, Date.now() - t0, o.containsSpeech, JSON.stringify(o.text)); }
await agent.stop(); await s.close();
