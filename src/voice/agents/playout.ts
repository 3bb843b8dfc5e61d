import { WIRE_SILENCE } from "../call.js";

/** What one tick of an agent's speech holds once played out. */
export interface PlayedTick {
  /** Exactly one tick of wire audio (silence after the speech, when it ends inside the tick). */
  audio: Uint8Array;
  /** The part of the transcript this tick's audio covers. */
  text: string;
  /** Whether any of the agent's speech is in the tick. */
  containsSpeech: boolean;
}

interface Utterance {
  audioBytes: number;
  playedBytes: number;
  text: string;
  shownChars: number;
  /** No more audio or text will come for it. */
  finished: boolean;
}

/**
 * An agent's speech on its way to the wire: providers send audio faster (or slower) than it plays, and
 * its transcript separately. Each tick plays one tick of the queued audio; the transcript is spread over
 * the ticks its audio covers, in proportion to the audio played (all of an utterance's text is out once
 * its last audio has played). An interruption drops what was not played yet, and the text it covered.
 */
export class AgentPlayout {
  private readonly queue: Array<{ utterance: string; bytes: Uint8Array }> = [];
  private readonly utterances = new Map<string, Utterance>();
  /** Utterances with text still to show, in the order they started. */
  private readonly order: string[] = [];

  constructor(private readonly bytesPerTick: number) {}

  /** Wire audio bytes queued and not played yet. */
  get queuedBytes(): number {
    return this.queue.reduce((sum, chunk) => sum + chunk.bytes.length, 0);
  }

  addAudio(utterance: string, wire: Uint8Array): void {
    if (wire.length === 0) return;
    this.utteranceFor(utterance).audioBytes += wire.length;
    this.queue.push({ utterance, bytes: wire });
  }

  addText(utterance: string, text: string): void {
    this.utteranceFor(utterance).text += text;
  }

  /** No more audio or text will come for `utterance`. */
  finish(utterance: string): void {
    const found = this.utterances.get(utterance);
    if (found) found.finished = true;
  }

  /**
   * The listener cut in: audio not played yet is dropped, and every utterance so far ends where its
   * playing stopped. Returns the bytes dropped.
   */
  interrupt(): number {
    const dropped = this.queuedBytes;
    this.queue.length = 0;
    for (const id of this.order) {
      const utterance = this.utterances.get(id)!;
      utterance.finished = true;
      utterance.audioBytes = utterance.playedBytes;
      // What was not said is not in the transcript.
      utterance.text = utterance.text.slice(0, utterance.shownChars);
    }
    this.prune();
    return dropped;
  }

  /** Plays one tick. */
  take(): PlayedTick {
    const audio = new Uint8Array(this.bytesPerTick).fill(WIRE_SILENCE);
    let filled = 0;
    const touched: string[] = [];
    while (filled < this.bytesPerTick && this.queue.length > 0) {
      const chunk = this.queue[0]!;
      const count = Math.min(chunk.bytes.length, this.bytesPerTick - filled);
      audio.set(chunk.bytes.subarray(0, count), filled);
      filled += count;
      if (count === chunk.bytes.length) this.queue.shift();
      else chunk.bytes = chunk.bytes.subarray(count);
      this.utterances.get(chunk.utterance)!.playedBytes += count;
      if (!touched.includes(chunk.utterance)) touched.push(chunk.utterance);
    }
    const pieces: string[] = [];
    for (const id of this.order) {
      const utterance = this.utterances.get(id)!;
      const piece = this.nextText(utterance, touched.includes(id));
      if (piece !== "") pieces.push(piece);
    }
    this.prune();
    return { audio, text: pieces.join(" "), containsSpeech: filled > 0 };
  }

  private nextText(utterance: Utterance, playedNow: boolean): string {
    if (utterance.text === "" || utterance.audioBytes === 0) return "";
    const allPlayed = utterance.playedBytes >= utterance.audioBytes;
    // Text that arrives after its audio has played is shown once the utterance is over.
    if (!playedNow && !(allPlayed && utterance.finished)) return "";
    const end =
      allPlayed && utterance.finished
        ? utterance.text.length
        : Math.ceil((utterance.playedBytes / utterance.audioBytes) * utterance.text.length);
    const from = utterance.shownChars;
    utterance.shownChars = Math.max(from, Math.min(end, utterance.text.length));
    return utterance.text.slice(from, utterance.shownChars);
  }

  private utteranceFor(id: string): Utterance {
    let utterance = this.utterances.get(id);
    if (!utterance) {
      utterance = { audioBytes: 0, playedBytes: 0, text: "", shownChars: 0, finished: false };
      this.utterances.set(id, utterance);
      this.order.push(id);
    }
    return utterance;
  }

  /** Forgets utterances that are over: played, shown and finished. */
  private prune(): void {
    for (let i = this.order.length - 1; i >= 0; i--) {
      const id = this.order[i]!;
      const u = this.utterances.get(id)!;
      if (u.finished && u.playedBytes >= u.audioBytes && u.shownChars >= u.text.length) {
        this.utterances.delete(id);
        this.order.splice(i, 1);
      }
    }
  }
}
