/* global AudioWorkletProcessor, registerProcessor */
// The voice playground's microphone tap: hands each block of captured samples (mono, the audio
// context's rate) to the page, which resamples and μ-law encodes them (src/voice/wire-audio.ts).
class PasskCapture extends AudioWorkletProcessor {
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (channel) this.port.postMessage(channel.slice(0));
    return true;
  }
}
registerProcessor("passk-capture", PasskCapture);
