import { useEffect, useRef, useState } from "react";
import { VoiceCallDetailSchema, type VoiceCallDetail } from "../../../src/server/voice-api-schemas.js";
import { answer, api, cancellable } from "../api.js";
import { NotFound } from "../components/not-found.js";
import { VoiceTimeline } from "../components/voice-timeline.js";
import { href } from "../router.js";
import { useApiGet } from "../use-api-get.js";
import { formatSeconds } from "./voice-format.js";

type Line =
  | { kind: "speech"; time: number; segment: VoiceCallDetail["segments"][number] }
  | { kind: "tool"; time: number; call: VoiceCallDetail["toolCalls"][number] };

/** The transcript: each side's speech and each tool call, in the order of the call. */
function transcriptLines(detail: VoiceCallDetail): Line[] {
  return [
    ...detail.segments.map((segment): Line => ({ kind: "speech", time: segment.start, segment })),
    ...detail.toolCalls.map((call): Line => ({ kind: "tool", time: call.time, call })),
  ].sort((a, b) => a.time - b.time || (a.kind === "speech" ? -1 : 1));
}

/** Where the player is: followed every frame while it plays, and on every seek. */
function usePlayhead(audio: HTMLAudioElement | null): number {
  const [time, setTime] = useState(0);
  useEffect(() => {
    if (!audio) return;
    let frame: number | undefined;
    const follow = () => {
      setTime(audio.currentTime);
      frame = audio.paused ? undefined : requestAnimationFrame(follow);
    };
    const onPlay = () => {
      if (frame === undefined) frame = requestAnimationFrame(follow);
    };
    const onChange = () => setTime(audio.currentTime);
    audio.addEventListener("play", onPlay);
    audio.addEventListener("seeking", onChange);
    audio.addEventListener("seeked", onChange);
    audio.addEventListener("timeupdate", onChange);
    return () => {
      if (frame !== undefined) cancelAnimationFrame(frame);
      audio.removeEventListener("play", onPlay);
      audio.removeEventListener("seeking", onChange);
      audio.removeEventListener("seeked", onChange);
      audio.removeEventListener("timeupdate", onChange);
    };
  }, [audio]);
  return time;
}

export function VoiceCallPage(props: { runId: string; callId: string }) {
  const detail = useApiGet(`voice-call:${props.runId}:${props.callId}`, (signal) =>
    answer(
      api["voice-runs"][":runId"].calls[":simulationId"].$get(
        { param: { runId: props.runId, simulationId: props.callId } },
        cancellable(signal),
      ),
      VoiceCallDetailSchema,
    ),
  );
  const [audio, setAudio] = useState<HTMLAudioElement | null>(null);
  const playhead = usePlayhead(audio);
  const transcript = useRef<HTMLOListElement>(null);
  if (detail.code === "voice_run_not_found" || detail.code === "voice_call_not_found")
    return <NotFound title="No such voice call" message={detail.error ?? ""} />;
  if (detail.error)
    return (
      <p className="error-text" role="alert">
        {detail.error}
      </p>
    );
  if (!detail.data) return <p className="muted">Loading…</p>;
  const data = detail.data;
  const { call } = data;
  const seek = (seconds: number) => {
    if (audio) audio.currentTime = seconds;
  };
  const lines = transcriptLines(data);
  const current = (s: VoiceCallDetail["segments"][number]) => playhead >= s.start && playhead < s.end;
  const notable = data.events.filter((e) => e.error || e.warning);
  return (
    <div className="page voice-call-page">
      <header className="page-head">
        <p className="muted small">
          <a href={href({ page: "runs" })}>Runs</a> ›{" "}
          <a href={href({ page: "voice-run", runId: data.runId })}>{data.runId}</a> › call
        </p>
        <h1>
          Task {call.taskId}, trial {call.trial ?? "—"}
        </h1>
        <p
          className={call.reward !== null && call.reward >= 1 ? "muted" : "error-text"}
          data-testid="voice-verdict"
        >
          reward {call.reward === null ? "not graded" : call.reward.toFixed(2)} · ended by{" "}
          {call.terminationReason ?? "—"} · {formatSeconds(call.durationSec)} · speech{" "}
          {data.speechComplexity ?? "—"}
          {call.explanation && <> · {call.explanation}</>}
        </p>
      </header>
      <section className="card voice-player" aria-label="Recording">
        {data.audioUrl ? (
          <audio
            ref={setAudio}
            controls
            preload="metadata"
            src={data.audioUrl}
            data-testid="voice-audio"
            style={{ width: "100%" }}
          >
            The call's recording (customer left, agent right).
          </audio>
        ) : (
          <p className="muted">This call has no recording (the run was made with --no-audio).</p>
        )}
        <p className="muted small">Stereo: the customer on the left, the agent on the right.</p>
        <VoiceTimeline
          segments={data.segments}
          toolCalls={data.toolCalls.map((c) => ({
            id: c.id,
            name: c.name,
            time: c.time,
            ...(c.resultTime !== null ? { endTime: c.resultTime } : {}),
            error: c.error,
          }))}
          events={data.events}
          duration={call.durationSec}
          playhead={playhead}
          onSeek={seek}
        />
        {notable.length > 0 && (
          <ul className="voice-events" aria-label="What went wrong in the turn-taking">
            {notable.map((e) => (
              <li key={`${e.category}-${e.time}`}>
                <button type="button" className="link-button" onClick={() => seek(e.time)}>
                  {formatSeconds(e.time)}
                </button>{" "}
                <span className={e.error ? "error-text" : ""}>{e.label}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="card" aria-labelledby="voice-transcript-title">
        <h2 id="voice-transcript-title">Transcript</h2>
        <p className="muted small">Press a line to hear it.</p>
        <ol className="voice-transcript" ref={transcript} data-testid="voice-transcript">
          {lines.map((line) =>
            line.kind === "speech" ? (
              <li
                key={`s-${line.segment.side}-${line.segment.startTick}`}
                className={`voice-line ${line.segment.side}${current(line.segment) ? " current" : ""}`}
                aria-current={current(line.segment) ? "true" : undefined}
                data-start={line.segment.start}
              >
                <button type="button" onClick={() => seek(line.segment.start)}>
                  <span className="voice-time">{formatSeconds(line.segment.start)}</span>
                  <span className="voice-who">{line.segment.side}</span>
                  {line.segment.interruption && <span className="badge bad">interrupts</span>}
                  {line.segment.backchannel && <span className="badge muted">backchannel</span>}
                  <span className="voice-text">{line.segment.text || "(no words recorded)"}</span>
                </button>
              </li>
            ) : (
              <li key={`t-${line.call.id}`} className="voice-line tool" data-start={line.call.time}>
                <button type="button" onClick={() => seek(line.call.time)}>
                  <span className="voice-time">{formatSeconds(line.call.time)}</span>
                  <span className="voice-who">tool</span>
                  <code>
                    {line.call.name}({JSON.stringify(line.call.arguments)})
                  </code>
                  {line.call.error && <span className="badge bad">error</span>}
                </button>
              </li>
            ),
          )}
        </ol>
      </section>
    </div>
  );
}
