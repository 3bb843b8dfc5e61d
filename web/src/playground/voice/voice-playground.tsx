import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import {
  SCRIPTED_VOICE_AGENT,
  VOICE_CALL_PATH,
  voiceServerMessageSchema,
  type VoiceEndedMessage,
  type VoiceReadyMessage,
  type VoiceStart,
  type VoiceStartedMessage,
  type VoiceTickMessage,
} from "../../../../src/server/voice-call-protocol.js";
import { VoiceTimeline } from "../../components/voice-timeline.js";
import { WorldCards } from "../world-cards.js";
import { fromBase64, openMicrophone, TickPlayer, type Microphone } from "./call-audio.js";
import { effectsOf, timelineOf } from "./voice-lanes.js";
import { worldEventsOf } from "./voice-world.js";

// The playground's voice mode: pick a task, a voice agent and who calls — the simulated voice customer
// or you at the microphone — and the call runs on the server, streamed here tick by tick over a
// WebSocket: both sides' audio plays in real time, the two-lane timeline grows as it plays, tool calls
// are pinned on it, the interaction-metric events are marked on it as the server settles them, the
// agent's world changes in the text mode's own cards, and the effects the caller's audio went through
// are named. Graded at the end.

type Phase = "idle" | "connecting" | "calling" | "ended";

export function VoicePlayground() {
  const [ready, setReady] = useState<VoiceReadyMessage | null>(null);
  const [readyError, setReadyError] = useState<string | null>(null);
  const [taskKey, setTaskKey] = useState("");
  const [agent, setAgent] = useState(SCRIPTED_VOICE_AGENT);
  const [customer, setCustomer] = useState<VoiceStart["customer"]>("simulated");
  const [complexity, setComplexity] = useState<VoiceStart["complexity"]>("control");
  const [phase, setPhase] = useState<Phase>("idle");
  const [started, setStarted] = useState<VoiceStartedMessage | null>(null);
  const [ended, setEnded] = useState<VoiceEndedMessage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [revealed, setRevealed] = useState(0);
  const [pushToTalk, setPushToTalk] = useState(false);
  const [talking, setTalking] = useState(false);
  const [muted, setMuted] = useState(false);
  const [hearLine, setHearLine] = useState(false);

  const ticks = useRef<VoiceTickMessage[]>([]);
  const socket = useRef<WebSocket | null>(null);
  const player = useRef<TickPlayer | null>(null);
  const context = useRef<AudioContext | null>(null);
  const microphone = useRef<Microphone | null>(null);
  const gate = useRef({ pushToTalk, talking, muted, hearLine });
  gate.current = { pushToTalk, talking, muted, hearLine };

  // What can be called: one socket for the offer (the server says it in its first message).
  useEffect(() => {
    const ws = new WebSocket(socketUrl());
    ws.onmessage = (event) => {
      const parsed = voiceServerMessageSchema.safeParse(JSON.parse(String(event.data)));
      const message = parsed.success ? parsed.data : undefined;
      if (message?.type === "ready") {
        setReady(message);
        setTaskKey((key) => key || keyOf(message.tasks[0]));
      }
      ws.close();
    };
    ws.onerror = () => setReadyError("Cannot reach the voice playground on this server.");
    return () => {
      // Closed before it answered (a remount): not the server's failure.
      ws.onerror = null;
      ws.onmessage = null;
      ws.close();
    };
  }, []);

  const teardown = useCallback(() => {
    microphone.current?.close();
    microphone.current = null;
    socket.current?.close();
    socket.current = null;
  }, []);

  useEffect(
    () => () => {
      teardown();
      player.current?.close();
      void context.current?.close();
    },
    [teardown],
  );

  // The timeline follows the playback (real time), not the arrival of ticks.
  useEffect(() => {
    if (phase === "idle") return;
    const timer = setInterval(() => {
      const p = player.current;
      if (!p) return;
      p.pump();
      const due = Math.min(ticks.current.length, Math.floor(p.played() / p.tickSeconds + 1e-6));
      setRevealed((shown) => (shown === due ? shown : due));
    }, 100);
    return () => clearInterval(timer);
  }, [phase]);

  const call = async () => {
    const task = ready?.tasks.find((t) => keyOf(t) === taskKey);
    if (!task) return;
    teardown();
    player.current?.close();
    ticks.current = [];
    setRevealed(0);
    setStarted(null);
    setEnded(null);
    setError(null);
    setPhase("connecting");
    // Created in the click, so the browser lets it play.
    const audio = (context.current ??= new AudioContext());
    await audio.resume();
    const ws = new WebSocket(socketUrl());
    ws.binaryType = "arraybuffer";
    socket.current = ws;
    ws.onmessage = (event) => {
      const parsed = voiceServerMessageSchema.safeParse(JSON.parse(String(event.data)));
      if (!parsed.success) return;
      const message = parsed.data;
      if (message.type === "ready") {
        const start: VoiceStart = {
          type: "start",
          domain: task.domain,
          taskId: task.id,
          agent,
          customer,
          complexity,
        };
        ws.send(JSON.stringify(start));
      } else if (message.type === "started") {
        setStarted(message);
        setPhase("calling");
        player.current = new TickPlayer(
          audio,
          message.tickSeconds,
          () => customer === "simulated" || gate.current.hearLine,
        );
        if (customer === "me") {
          const open = () => !gate.current.muted && (!gate.current.pushToTalk || gate.current.talking);
          openMicrophone(audio, message.bytesPerTick, open, (frame) => {
            if (ws.readyState === WebSocket.OPEN) ws.send(frame);
          })
            .then((mic) => {
              if (socket.current === ws) microphone.current = mic;
              else mic.close();
            })
            .catch((cause: unknown) => {
              setError(
                `The microphone could not be opened: ${cause instanceof Error ? cause.message : cause}`,
              );
              ws.close();
            });
        }
      } else if (message.type === "tick") {
        player.current?.add({ user: fromBase64(message.user), agent: fromBase64(message.agent) });
        // The audio lives in the player until it is scheduled; the page keeps the rest of the tick.
        ticks.current.push({ ...message, user: "", agent: "" });
      } else if (message.type === "ended") {
        setEnded(message);
        microphone.current?.close();
        microphone.current = null;
      } else if (message.type === "error") {
        setError(message.message);
      }
    };
    ws.onclose = () => {
      microphone.current?.close();
      microphone.current = null;
      setPhase("ended");
    };
    ws.onerror = () => setError("The connection to the server was lost.");
  };

  const hangUp = () => socket.current?.send(JSON.stringify({ type: "hangup" }));

  const tickSeconds = started?.tickSeconds ?? 0.2;
  const shown = ticks.current.slice(0, revealed);
  // Recomputed at each reveal (at most ten times a second): linear in the ticks shown.
  const { segments, toolCalls } = timelineOf(shown, tickSeconds);
  const effects = effectsOf(shown);
  // The text mode's world cards, fed the revealed ticks' tool calls and changes as its events.
  const worldEvents = useMemo(() => worldEventsOf(ticks.current.slice(0, revealed)), [revealed, started]);
  // Interaction events as the ticks played so far settled them; at the end of the playback, the call's own.
  const events =
    ended && revealed >= ticks.current.length ? ended.events : shown.flatMap((tick) => tick.events);
  const notable = events.filter((e) => e.error || e.warning);
  const duration = revealed * tickSeconds;
  const playedAll = phase === "ended" && revealed >= ticks.current.length;
  const shownTools = shown.flatMap((tick, i) =>
    [...tick.agentToolCalls, ...tick.userToolCalls].map((call) => ({ ...call, time: i * tickSeconds })),
  );
  const live = phase === "calling" || phase === "connecting";
  const scriptedAgent = ready?.agents.find((a) => a.spec === agent)?.scripted ?? true;
  const unavailable = ready?.agents.filter((a) => a.unavailable !== undefined) ?? [];

  return (
    <div className="page voice-playground">
      <header className="page-head">
        <h1>Voice playground</h1>
        <p>
          A phone call with a voice agent: full duplex, 0.2 s ticks over an 8 kHz μ-law line, run on the
          server and played here as it goes.
        </p>
      </header>
      {(scriptedAgent || (customer === "simulated" && ready?.scriptedCustomer)) && (
        <section className="replay-banner" aria-label="What this is" data-testid="voice-scripted-demo">
          <p>
            <strong>Scripted demo — no model is called.</strong>{" "}
            {scriptedAgent &&
              "The agent is passk's mock realtime server playing the task's gold actions (it has no speech recognition: it decodes test-codec tones, and your own words it hears only as speech it could not make out, and says so). "}
            {customer === "simulated" && ready?.scriptedCustomer && `${ready.scriptedCustomerNote} `}
            To call a real agent, start <code>passk serve</code> with <code>OPENAI_API_KEY</code> (or{" "}
            <code>GEMINI_API_KEY</code>) set.
          </p>
        </section>
      )}
      {readyError && (
        <p className="error-text" role="alert">
          {readyError}
        </p>
      )}
      <form
        className="voice-setup"
        aria-label="Call setup"
        onSubmit={(event) => {
          event.preventDefault();
          void call();
        }}
      >
        <label>
          Task
          <select value={taskKey} onChange={(e) => setTaskKey(e.target.value)} disabled={live}>
            {ready?.tasks.map((task) => (
              <option key={keyOf(task)} value={keyOf(task)}>
                {task.domain} {task.id}: {task.title}
              </option>
            ))}
          </select>
        </label>
        <label>
          Voice agent
          <select value={agent} onChange={(e) => setAgent(e.target.value)} disabled={live}>
            {ready?.agents.map((a) => (
              <option key={a.spec} value={a.spec} disabled={a.unavailable !== undefined}>
                {a.label}
                {a.unavailable !== undefined ? " (unavailable)" : ""}
              </option>
            ))}
          </select>
        </label>
        {unavailable.length > 0 && (
          <ul className="muted small voice-unavailable" data-testid="voice-agent-unavailable">
            {unavailable.map((a) => (
              <li key={a.spec}>
                <strong>{a.label}</strong> is unavailable: {a.unavailable}
              </li>
            ))}
          </ul>
        )}
        <fieldset disabled={live}>
          <legend>Caller</legend>
          <label>
            <input
              type="radio"
              name="caller"
              checked={customer === "simulated"}
              onChange={() => setCustomer("simulated")}
            />
            Simulated customer
          </label>
          <label>
            <input
              type="radio"
              name="caller"
              checked={customer === "me"}
              onChange={() => setCustomer("me")}
            />
            Me (speak as the customer)
          </label>
        </fieldset>
        <label>
          Line
          <select
            value={complexity}
            onChange={(e) => setComplexity(e.target.value === "regular" ? "regular" : "control")}
            disabled={live}
          >
            <option value="control">control: a clean line</option>
            <option value="regular">regular: noise, bursts, muffling, drops</option>
          </select>
        </label>
        <button type="submit" className="primary" disabled={!ready || live || !taskKey}>
          Call
        </button>
      </form>

      {customer === "me" && phase === "calling" && (
        <div className="voice-controls" role="group" aria-label="Your microphone">
          <label>
            <input type="checkbox" checked={pushToTalk} onChange={(e) => setPushToTalk(e.target.checked)} />
            Push to talk
          </label>
          {pushToTalk && (
            <button
              type="button"
              className={talking ? "primary" : ""}
              aria-pressed={talking}
              onPointerDown={() => setTalking(true)}
              onPointerUp={() => setTalking(false)}
              onPointerLeave={() => setTalking(false)}
              onKeyDown={(e) => e.key === " " && setTalking(true)}
              onKeyUp={(e) => e.key === " " && setTalking(false)}
            >
              {talking ? "Talking…" : "Hold to talk"}
            </button>
          )}
          <button type="button" aria-pressed={muted} onClick={() => setMuted((m) => !m)}>
            {muted ? "Unmute" : "Mute"}
          </button>
          <label>
            <input type="checkbox" checked={hearLine} onChange={(e) => setHearLine(e.target.checked)} />
            Hear my line (what the agent hears)
          </label>
          <button type="button" className="danger" onClick={hangUp}>
            Hang up
          </button>
        </div>
      )}

      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}

      {started && (
        <section className="voice-call" aria-label="The call" data-testid="voice-call">
          <p className="muted" data-testid="voice-status">
            {started.agent} ← {started.customer} ·{" "}
            {phase === "calling" ? "on the call" : playedAll ? "call ended" : "playing"} ·{" "}
            {duration.toFixed(1)} s{started.scriptedDemo ? " · scripted demo" : ""}
          </p>
          <VoiceTimeline
            segments={segments}
            toolCalls={toolCalls}
            events={events}
            duration={Math.max(duration, tickSeconds)}
            playhead={duration}
            label="Speech timeline of the call"
          />
          {notable.length > 0 && (
            <ul
              className="voice-events"
              aria-label="What went wrong in the turn-taking"
              data-testid="voice-notable-events"
            >
              {notable.map((e, i) => (
                <li key={i}>
                  <span className="muted">{e.time.toFixed(1)} s</span>{" "}
                  <span className={e.error ? "error-text" : ""}>{e.label}</span>
                </li>
              ))}
            </ul>
          )}
          <div className="voice-panels">
            <section aria-label="Caller's line" data-testid="voice-effects">
              <h2>Caller's line</h2>
              <ul>
                {started.line.map((condition) => (
                  <li key={condition}>{condition}</li>
                ))}
                {effects.map((effect) => (
                  <li key={effect}>{effect}</li>
                ))}
              </ul>
            </section>
            <section aria-label="Tool calls" data-testid="voice-tools">
              <h2>Tool calls</h2>
              {shownTools.length === 0 && <p className="muted">None yet.</p>}
              <ol>
                {shownTools.map((call) => (
                  <li key={call.id} className={call.error ? "error-text" : undefined}>
                    <code>
                      {call.name}({JSON.stringify(call.arguments)})
                    </code>{" "}
                    <span className="muted">at {call.time.toFixed(1)} s</span>
                    <details>
                      <summary>result</summary>
                      <pre>{call.result}</pre>
                    </details>
                  </li>
                ))}
              </ol>
            </section>
            <section aria-label="The agent's world" data-testid="voice-world">
              <h2>World</h2>
              {!worldEvents.some(
                (e) => e.type === "world-change" || (e.type === "tool-call-end" && e.records),
              ) && <p className="muted">No record looked up yet.</p>}
              <WorldCards events={worldEvents} />
            </section>
            <section aria-label="Transcript" data-testid="voice-transcript">
              <h2>Transcript</h2>
              <ol>
                {segments
                  .filter((s) => s.text !== "")
                  .map((s) => (
                    <li key={`${s.side}-${s.start}`} data-side={s.side}>
                      <strong>{s.side === "customer" ? "Customer" : "Agent"}</strong>{" "}
                      <span className="muted">{s.start.toFixed(1)} s</span> {s.text}
                    </li>
                  ))}
              </ol>
            </section>
          </div>
        </section>
      )}

      {ended && playedAll && (
        <div
          className={`verdict-banner ${ended.reward !== null && ended.reward >= 1 ? "passed" : "failed"}`}
          role="status"
          data-testid="voice-verdict"
        >
          <strong className="verdict-words">
            {ended.reward === null
              ? `Not graded: ${ended.error ?? ended.termination}`
              : `Reward ${ended.reward} (${ended.termination})`}
          </strong>
          {ended.explanation && <span> — {ended.explanation}</span>}
        </div>
      )}
    </div>
  );
}

const keyOf = (task: { domain: string; id: string } | undefined) => (task ? `${task.domain}/${task.id}` : "");

function socketUrl(): string {
  const url = new URL(VOICE_CALL_PATH, window.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.hash = "";
  return url.href;
}
