import type { SpeechInsert } from "../call.js";
import type { SpeechEffectsSettings } from "../voice-settings.js";
import { pick, poissonFires, randomStream } from "./random.js";

// When the caller coughs mid-sentence or says something not meant for the agent ("Hold on a second."),
// per the task's `speech_effects_config`. The voice customer asks, then speaks the insert's text with its
// speech model: a vocal tic inside an utterance's text, or an insert on its own while the caller is
// silent. The rates follow the reference: `speech_insert_events_per_minute` is a Poisson rate over the
// caller's silences, and, for tics inside utterances, a chance per utterance of that rate over an assumed
// 10 utterances a minute (at most one in two). A non-directed phrase is said away from the phone: pass
// its audio through `muffleAwayFromPhone` (effects/muffling.ts), as the reference muffles them.

const UTTERANCES_PER_MINUTE = 10;
const MAX_TIC_CHANCE = 0.5;

export interface UtteranceWithInsert {
  /** The text to speak: the utterance, with the tic inserted between two of its words when drawn. */
  text: string;
  insert: SpeechInsert | null;
}

export class SpeechInsertScheduler {
  private readonly utteranceRandom: () => number;
  private readonly silenceRandom: () => number;
  private readonly silenceInserts: readonly SpeechInsert[];

  constructor(
    private readonly settings: SpeechEffectsSettings,
    seed: number,
  ) {
    this.utteranceRandom = randomStream(seed, 11);
    this.silenceRandom = randomStream(seed, 12);
    this.silenceInserts = [
      ...(settings.enable_vocal_tics ? settings.vocal_tics : []),
      ...(settings.enable_non_directed_phrases ? settings.non_directed_phrases : []),
    ];
  }

  /** A new utterance of the caller: maybe a vocal tic between two of its words. */
  forUtterance(text: string): UtteranceWithInsert {
    const { settings } = this;
    if (!settings.enable_vocal_tics || settings.vocal_tics.length === 0) return { text, insert: null };
    const chance = Math.min(settings.speech_insert_events_per_minute / UTTERANCES_PER_MINUTE, MAX_TIC_CHANCE);
    if (!(this.utteranceRandom() < chance)) return { text, insert: null };
    const words = text.split(/\s+/).filter((w) => w !== "");
    if (words.length < settings.min_words_for_vocal_tics || words.length < 2) return { text, insert: null };
    const insert = pick(settings.vocal_tics, this.utteranceRandom);
    const at = 1 + Math.floor(this.utteranceRandom() * (words.length - 1));
    words.splice(at, 0, insert.text);
    return { text: words.join(" "), insert };
  }

  /** A stretch of the caller's silence (`seconds`, e.g. one tick): maybe an insert to say now. */
  duringSilence(seconds: number): SpeechInsert | null {
    if (this.silenceInserts.length === 0) return null;
    const perSecond = this.settings.speech_insert_events_per_minute / 60;
    return poissonFires(perSecond, seconds, this.silenceRandom)
      ? pick(this.silenceInserts, this.silenceRandom)
      : null;
  }
}
