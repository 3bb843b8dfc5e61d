import type { ChannelEffectsSettings } from "../voice-settings.js";

// Packets lost on the line: a Gilbert–Elliott channel over 20 ms frames. In the good state no frame is
// lost; in the bad state every frame is. The bad state lasts `frame_drop_burst_duration_ms` on average
// and the chain spends `frame_drop_rate` of the time there, so that fraction of the audio is lost, in
// bursts. A lost frame becomes silence and the timing is kept.

/** One frame on the line (ms), as in RTP telephony. */
export const FRAME_MS = 20;

export class FrameDrops {
  private bad = false;
  private frame = -1;
  private readonly frameSamples: number;
  private readonly enterBad: number;
  private readonly leaveBad: number;

  constructor(
    settings: ChannelEffectsSettings,
    sampleRate: number,
    private readonly random: () => number,
  ) {
    this.frameSamples = Math.round((FRAME_MS * sampleRate) / 1000);
    const rate = settings.enable_frame_drops ? settings.frame_drop_rate : 0;
    this.leaveBad = Math.min(1, FRAME_MS / settings.frame_drop_burst_duration_ms);
    this.enterBad = rate > 0 ? (this.leaveBad * rate) / (1 - rate) : 0;
  }

  /** Whether the line loses anything at all. */
  get enabled(): boolean {
    return this.enterBad > 0;
  }

  /**
   * Mark the samples of a tick lost on the line; `start` is the call's sample index of the tick's first
   * sample. Returns how many were lost.
   */
  lose(lost: Uint8Array, start: number): number {
    if (!this.enabled) return 0;
    let count = 0;
    let i = 0;
    while (i < lost.length) {
      const frame = Math.floor((start + i) / this.frameSamples);
      const frameEnd = Math.min(lost.length, (frame + 1) * this.frameSamples - start);
      if (frame !== this.frame) {
        this.frame = frame;
        this.bad = this.bad ? this.random() >= this.leaveBad : this.random() < this.enterBad;
      }
      if (this.bad) {
        lost.fill(1, i, frameEnd);
        count += frameEnd - i;
      }
      i = frameEnd;
    }
    return count;
  }
}
