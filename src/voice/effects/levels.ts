/**
 * The nominal speech level (RMS of PCM16) that noise SNRs are relative to, as in the reference: noise at
 * `snr` dB has RMS `SPEECH_REFERENCE_RMS × 10^(−snr/20)`, whatever the speech's actual level.
 */
export const SPEECH_REFERENCE_RMS = 3000;

/** The RMS of noise at `snrDb` under the nominal speech level. */
export function noiseRmsAt(snrDb: number): number {
  return SPEECH_REFERENCE_RMS * 10 ** (-snrDb / 20);
}
