import { CallerEncoder, floatToPcm16, mulawDecode } from "../../../../src/voice/wire-audio.js";

// The voice playground's audio in the browser: a player that plays both sides' 8 kHz μ-law ticks in
// real time through Web Audio (whatever pace they arrive at: a simulated call on the server's virtual
// clock arrives in a burst and is scheduled a second ahead; a live call as it happens), and the
// microphone path — captured samples → PCM16 → the shared resampler to 8 kHz → μ-law → one tick per
// message — with the very functions the server uses (wire-audio.ts).

const WIRE_RATE = 8000;
/** How far ahead of the playhead ticks are scheduled (seconds). */
const LOOKAHEAD = 1.0;
/** A live tick that arrives late starts this long after now. */
const LATENCY = 0.15;

export interface PlayedTick {
  user: Uint8Array;
  agent: Uint8Array;
}

/** Plays ticks as one call's audio: tick i at start + i × tickSeconds. */
export class TickPlayer {
  /** Ticks received and not yet scheduled (tick `scheduled` first): played audio is not kept. */
  private readonly queue: PlayedTick[] = [];
  private received = 0;
  private start: number | null = null;
  private scheduled = 0;
  private readonly output: GainNode;

  constructor(
    readonly context: AudioContext,
    readonly tickSeconds: number,
    /** Play the caller's side too (a simulated caller, or a person hearing their own line). */
    private readonly playCaller: () => boolean,
  ) {
    this.output = context.createGain();
    this.output.connect(context.destination);
  }

  add(tick: PlayedTick): void {
    this.queue.push(tick);
    this.received++;
    this.pump();
  }

  /** Seconds of the call played so far. */
  played(): number {
    if (this.start === null) return 0;
    return Math.max(0, Math.min(this.context.currentTime - this.start, this.received * this.tickSeconds));
  }

  /** Schedule the ticks due within the look-ahead (call it often: on each tick and on a timer). */
  pump(): void {
    const now = this.context.currentTime;
    if (this.start === null && this.received > 0) this.start = now + LATENCY;
    if (this.start === null) return;
    while (this.queue.length > 0) {
      let at = this.start + this.scheduled * this.tickSeconds;
      if (at < now) {
        // A live tick came late: play it now and move the call's time with it.
        this.start = now + LATENCY - this.scheduled * this.tickSeconds;
        at = now + LATENCY;
      }
      if (at > now + LOOKAHEAD) break;
      this.play(this.queue.shift()!, at);
      this.scheduled++;
    }
  }

  private play(tick: PlayedTick, at: number): void {
    const agent = mulawDecode(tick.agent);
    const user = this.playCaller() ? mulawDecode(tick.user) : null;
    const buffer = this.context.createBuffer(1, agent.length, WIRE_RATE);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < agent.length; i++) {
      const sum = (agent[i]! + (user ? user[i]! : 0)) / 32768;
      data[i] = sum > 1 ? 1 : sum < -1 ? -1 : sum;
    }
    const source = this.context.createBufferSource();
    source.buffer = buffer;
    source.connect(this.output);
    source.start(at);
  }

  close(): void {
    this.output.disconnect();
  }
}

/** What the microphone path captured and what it sent (kept only when `localStorage["passk.voice.tap"]` is "1"). */
export interface CallerTap {
  rate: number;
  /** PCM16 samples handed to the encoder, in order (after push-to-talk and mute). */
  captured: Int16Array[];
}

declare global {
  interface Window {
    __passkVoiceTap?: CallerTap;
  }
}

export interface Microphone {
  /** The capture rate (the audio context's). */
  rate: number;
  close(): void;
}

/**
 * Open the microphone: every whole tick of 8 kHz μ-law goes to `send`. While `open()` is false (muted,
 * or push-to-talk not held) the ticks carry silence, so the call keeps its time.
 */
export async function openMicrophone(
  context: AudioContext,
  bytesPerTick: number,
  open: () => boolean,
  send: (tick: Uint8Array) => void,
): Promise<Microphone> {
  // The raw voice: no echo cancelling, noise suppression or gain control (the line adds its own).
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false, channelCount: 1 },
  });
  await context.audioWorklet.addModule(new URL("voice-capture-worklet.js", document.baseURI).href);
  const source = context.createMediaStreamSource(stream);
  const node = new AudioWorkletNode(context, "passk-capture");
  // The worklet must be pulled by the graph; it outputs nothing audible.
  const sink = context.createGain();
  sink.gain.value = 0;
  source.connect(node);
  node.connect(sink);
  sink.connect(context.destination);
  const encoder = new CallerEncoder(context.sampleRate, WIRE_RATE, bytesPerTick);
  const tap: CallerTap | undefined =
    localStorage.getItem("passk.voice.tap") === "1" ? { rate: context.sampleRate, captured: [] } : undefined;
  if (tap) window.__passkVoiceTap = tap;
  node.port.onmessage = (event: MessageEvent<Float32Array>) => {
    const pcm = open() ? floatToPcm16(event.data) : new Int16Array(event.data.length);
    tap?.captured.push(pcm);
    for (const tick of encoder.push(pcm)) send(tick);
  };
  return {
    rate: context.sampleRate,
    close: () => {
      node.port.onmessage = null;
      source.disconnect();
      node.disconnect();
      sink.disconnect();
      for (const track of stream.getTracks()) track.stop();
    },
  };
}

/** Bytes of base64 text. */
export function fromBase64(text: string): Uint8Array {
  const raw = atob(text);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}
