import { describe, expect, it } from "vitest";
import { AgentPlayout } from "../src/voice/agents/playout.js";

describe("agent playout", () => {
  it("plays a tick at a time and spreads an utterance's text over its ticks", () => {
    const playout = new AgentPlayout(4);
    playout.addAudio("a", new Uint8Array(10).fill(1));
    playout.addText("a", "abcdefghij");
    playout.finish("a");
    const ticks = [playout.take(), playout.take(), playout.take(), playout.take()];
    expect(ticks.map((t) => t.text)).toEqual(["abcd", "efgh", "ij", ""]);
    expect(ticks.map((t) => t.containsSpeech)).toEqual([true, true, true, false]);
    expect([...ticks[2]!.audio]).toEqual([1, 1, 0xff, 0xff]);
  });

  it("text that arrives after its audio has played is shown once the utterance is over", () => {
    const playout = new AgentPlayout(4);
    playout.addAudio("a", new Uint8Array(4).fill(1));
    expect(playout.take().text).toBe("");
    playout.addText("a", "late");
    playout.finish("a");
    expect(playout.take()).toMatchObject({ text: "late", containsSpeech: false });
  });

  it("an interruption drops the audio not played and the text it covered", () => {
    const playout = new AgentPlayout(4);
    playout.addAudio("a", new Uint8Array(12).fill(1));
    playout.addText("a", "abcdefghijkl");
    expect(playout.take().text).toBe("abcd");
    expect(playout.interrupt()).toBe(8);
    expect(playout.take()).toMatchObject({ text: "", containsSpeech: false });
    playout.addAudio("b", new Uint8Array(4).fill(2));
    playout.addText("b", "new");
    expect(playout.take()).toMatchObject({ text: "new", containsSpeech: true });
  });
});
