import { useEffect, useRef, type CSSProperties, type MouseEvent } from "react";

// A voice call drawn as two lanes over time — the customer above, the agent below — with where both
// spoke at once shaded, interruptions and backchannels marked, the agent's tool calls pinned under its
// lane and the interaction-metric events (late responses, failed yields, …) on a row between the lanes.
// Pure: everything comes in as props (times in seconds), so a recorded call (the explorer) and a call
// still running (the playground, whose duration grows) draw the same way. Styles are inline so the
// component carries no stylesheet of its own.

export type VoiceSide = "customer" | "agent";

/** A stretch of one side's speech. */
export interface TimelineSegment {
  side: VoiceSide;
  /** Seconds from the start of the call. */
  start: number;
  end: number;
  text: string;
  /** The caller started it over the agent (not a backchannel) / the agent started it over the caller. */
  interruption?: boolean;
  /** A caller's "mm-hm" while the agent talks. */
  backchannel?: boolean;
}

/** A tool call the agent made, from the time it was made to the time its result came (if it did). */
export interface TimelineToolCall {
  id: string;
  name: string;
  time: number;
  endTime?: number;
  error?: boolean;
}

/** An interaction-metric event: a response, a yield, a backchannel or tic the agent handled. */
export interface TimelineEvent {
  time: number;
  /** Short label (`late response 2.4 s`, `failed to yield`, `talked through backchannel`). */
  label: string;
  /** The agent erred here (drawn red). */
  error: boolean;
  /** Worth a look though not an error (a late response). */
  warning?: boolean;
}

export interface VoiceTimelineProps {
  segments: readonly TimelineSegment[];
  toolCalls: readonly TimelineToolCall[];
  events: readonly TimelineEvent[];
  /** Length of the call in seconds (grows while a call runs). */
  duration: number;
  /** Where the player is, in seconds. */
  playhead?: number;
  /** A click on the timeline asks to play from that time. */
  onSeek?: (seconds: number) => void;
  /** Horizontal scale; the timeline is at least its box's width (default 14 px per second). */
  pxPerSecond?: number;
  /** Accessible name (default "Speech timeline"). */
  label?: string;
}

/** Where both sides speak at once: the intersections of customer and agent segments, merged. */
export function overlapIntervals(segments: readonly TimelineSegment[]): { start: number; end: number }[] {
  const customer = segments.filter((s) => s.side === "customer");
  const agent = segments.filter((s) => s.side === "agent");
  const found: { start: number; end: number }[] = [];
  for (const c of customer)
    for (const a of agent) {
      const start = Math.max(c.start, a.start);
      const end = Math.min(c.end, a.end);
      if (end > start) found.push({ start, end });
    }
  found.sort((x, y) => x.start - y.start);
  const merged: { start: number; end: number }[] = [];
  for (const interval of found) {
    const last = merged[merged.length - 1];
    if (last && interval.start <= last.end) last.end = Math.max(last.end, interval.end);
    else merged.push({ ...interval });
  }
  return merged;
}

const COLORS = {
  customer: "#7c3aed",
  customerSoft: "#ede9fe",
  agent: "#0891b2",
  agentSoft: "#cffafe",
  overlap: "rgba(234, 88, 12, 0.22)",
  error: "#b91c1c",
  warning: "#b45309",
  ok: "#15803d",
  tool: "#334155",
  grid: "#e2e8f0",
  muted: "#64748b",
};

const formatSeconds = (s: number) => {
  const minutes = Math.floor(s / 60);
  const seconds = s - minutes * 60;
  return minutes > 0 ? `${minutes}:${seconds.toFixed(1).padStart(4, "0")}` : `${seconds.toFixed(1)} s`;
};

const LANE_HEIGHT = 28;
const EVENT_ROW = 18;
const TOOL_ROW = 36;
const AXIS = 16;

export function VoiceTimeline(props: VoiceTimelineProps) {
  const duration = Math.max(props.duration, 0.001);
  const pxPerSecond = props.pxPerSecond ?? 14;
  const scroller = useRef<HTMLDivElement>(null);
  const pct = (t: number) => `${(Math.max(0, Math.min(t, duration)) / duration) * 100}%`;
  const widthPct = (start: number, end: number) =>
    `${(Math.max(0, Math.min(end, duration) - Math.max(start, 0)) / duration) * 100}%`;
  const overlaps = overlapIntervals(props.segments);
  const top = { customer: AXIS, events: AXIS + LANE_HEIGHT + 2, agent: AXIS + LANE_HEIGHT + EVENT_ROW + 4 };
  const toolTop = top.agent + LANE_HEIGHT + 2;
  const height = toolTop + TOOL_ROW;
  const playhead = props.playhead;

  // Keep the playhead in view when the timeline is wider than its box.
  useEffect(() => {
    const box = scroller.current;
    if (!box || playhead === undefined || box.scrollWidth <= box.clientWidth) return;
    const x = (playhead / duration) * box.scrollWidth;
    if (x < box.scrollLeft || x > box.scrollLeft + box.clientWidth - 24)
      box.scrollLeft = Math.max(0, x - box.clientWidth / 3);
  }, [playhead, duration]);

  const seek = (event: MouseEvent<HTMLDivElement>) => {
    if (!props.onSeek) return;
    const rect = event.currentTarget.getBoundingClientRect();
    const fraction = (event.clientX - rect.left) / rect.width;
    props.onSeek(Math.max(0, Math.min(1, fraction)) * duration);
  };

  const ticksEvery = duration > 300 ? 30 : duration > 60 ? 10 : duration > 20 ? 5 : 1;
  const axisTicks = Array.from({ length: Math.floor(duration / ticksEvery) + 1 }, (_, i) => i * ticksEvery);
  const laneLabel: CSSProperties = {
    position: "absolute",
    left: 4,
    fontSize: 11,
    color: COLORS.muted,
    pointerEvents: "none",
    zIndex: 1,
  };

  return (
    <div
      className="voice-timeline"
      role="group"
      aria-label={props.label ?? "Speech timeline"}
      data-testid="voice-timeline"
      style={{ border: `1px solid ${COLORS.grid}`, borderRadius: 8, background: "#fff" }}
    >
      <div style={{ display: "flex", gap: 12, flexWrap: "wrap", fontSize: 11, padding: "4px 8px" }}>
        <Legend color={COLORS.customer} text="customer" />
        <Legend color={COLORS.agent} text="agent" />
        <Legend color={COLORS.overlap} text="both speaking" />
        <Legend color={COLORS.error} text="interruption / error" />
        <Legend color={COLORS.tool} text="tool call" />
      </div>
      <div ref={scroller} style={{ overflowX: "auto", overflowY: "hidden" }}>
        <div
          onClick={seek}
          style={{
            position: "relative",
            height,
            minWidth: "100%",
            width: duration * pxPerSecond,
            cursor: props.onSeek ? "pointer" : "default",
          }}
        >
          {axisTicks.map((t) => (
            <div
              key={`axis-${t}`}
              aria-hidden="true"
              style={{
                position: "absolute",
                left: pct(t),
                top: 0,
                bottom: 0,
                borderLeft: `1px solid ${COLORS.grid}`,
                fontSize: 10,
                color: COLORS.muted,
                paddingLeft: 2,
                whiteSpace: "nowrap",
              }}
            >
              {formatSeconds(t)}
            </div>
          ))}
          {overlaps.map((o) => (
            <div
              key={`overlap-${o.start}`}
              data-testid="voice-overlap"
              title={`both speaking ${formatSeconds(o.start)}–${formatSeconds(o.end)}`}
              style={{
                position: "absolute",
                left: pct(o.start),
                width: widthPct(o.start, o.end),
                top: top.customer,
                height: top.agent + LANE_HEIGHT - top.customer,
                background: COLORS.overlap,
              }}
            />
          ))}
          {(["customer", "agent"] as const).map((side) => (
            <div
              key={side}
              data-lane={side}
              role="list"
              aria-label={`${side} speech`}
              style={{ position: "absolute", left: 0, right: 0, top: top[side], height: LANE_HEIGHT }}
            >
              <span style={{ ...laneLabel, top: 7 }}>{side}</span>
              {props.segments
                .filter((s) => s.side === side)
                .map((s) => {
                  const marked = s.interruption || s.backchannel;
                  const label = `${side} ${formatSeconds(s.start)}–${formatSeconds(s.end)}${s.interruption ? " (interruption)" : ""}${s.backchannel ? " (backchannel)" : ""}: ${s.text}`;
                  return (
                    <div
                      key={`${side}-${s.start}`}
                      role="listitem"
                      data-testid="voice-segment"
                      data-side={side}
                      data-interruption={s.interruption ? "true" : undefined}
                      data-backchannel={s.backchannel ? "true" : undefined}
                      title={label}
                      aria-label={label}
                      style={{
                        position: "absolute",
                        left: pct(s.start),
                        width: widthPct(s.start, s.end),
                        minWidth: 2,
                        top: 4,
                        height: LANE_HEIGHT - 8,
                        borderRadius: 4,
                        background: s.backchannel
                          ? side === "customer"
                            ? COLORS.customerSoft
                            : COLORS.agentSoft
                          : side === "customer"
                            ? COLORS.customer
                            : COLORS.agent,
                        outline: marked
                          ? `2px solid ${s.interruption ? COLORS.error : COLORS.customer}`
                          : undefined,
                        overflow: "hidden",
                      }}
                    />
                  );
                })}
            </div>
          ))}
          <div
            role="list"
            aria-label="interaction events"
            style={{ position: "absolute", left: 0, right: 0, top: top.events, height: EVENT_ROW }}
          >
            {props.events.map((e, i) => (
              <div
                key={`event-${i}`}
                role="listitem"
                data-testid="voice-event"
                data-error={e.error ? "true" : undefined}
                title={`${formatSeconds(e.time)}: ${e.label}`}
                aria-label={`${formatSeconds(e.time)}: ${e.label}`}
                style={{
                  position: "absolute",
                  left: pct(e.time),
                  top: 3,
                  width: 10,
                  height: 10,
                  marginLeft: -5,
                  transform: "rotate(45deg)",
                  background: e.error ? COLORS.error : e.warning ? COLORS.warning : COLORS.ok,
                  opacity: e.error || e.warning ? 1 : 0.55,
                }}
              />
            ))}
          </div>
          <div
            role="list"
            aria-label="tool calls"
            style={{ position: "absolute", left: 0, right: 0, top: toolTop, height: TOOL_ROW }}
          >
            {props.toolCalls.map((call, i) => {
              const end = call.endTime ?? call.time;
              const label = `${call.name} at ${formatSeconds(call.time)}${call.endTime !== undefined ? `, result at ${formatSeconds(call.endTime)}` : ", no result"}${call.error ? " (error)" : ""}`;
              return (
                <div
                  key={call.id}
                  role="listitem"
                  data-testid="voice-tool-call"
                  title={label}
                  aria-label={label}
                  style={{
                    position: "absolute",
                    left: pct(call.time),
                    width: widthPct(call.time, end),
                    minWidth: 3,
                    top: 2,
                    height: 6,
                    borderRadius: 2,
                    background: call.error ? COLORS.error : COLORS.tool,
                  }}
                >
                  <span
                    style={{
                      // Neighbouring calls' names alternate between two rows so they do not overprint.
                      position: "absolute",
                      top: i % 2 === 0 ? 6 : 19,
                      left: 0,
                      fontSize: 10,
                      whiteSpace: "nowrap",
                      color: call.error ? COLORS.error : COLORS.tool,
                    }}
                  >
                    ⚙ {call.name}
                  </span>
                </div>
              );
            })}
          </div>
          {playhead !== undefined && (
            <div
              data-testid="voice-playhead"
              aria-hidden="true"
              style={{
                position: "absolute",
                left: pct(playhead),
                top: 0,
                bottom: 0,
                borderLeft: "2px solid #0f172a",
                pointerEvents: "none",
              }}
            />
          )}
        </div>
      </div>
    </div>
  );
}

function Legend(props: { color: string; text: string }) {
  return (
    <span style={{ display: "inline-flex", alignItems: "center", gap: 4, color: COLORS.muted }}>
      <span
        aria-hidden="true"
        style={{ width: 10, height: 10, borderRadius: 2, background: props.color, display: "inline-block" }}
      />
      {props.text}
    </span>
  );
}
