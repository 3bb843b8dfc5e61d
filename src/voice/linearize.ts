import type { AssistantMessage, Message, ToolCall, ToolMessage, UserMessage } from "../core/message.js";
import type { Judge } from "../core/judge.js";
import type { RewardInfo } from "../core/simulation.js";
import type { Task } from "../core/task.js";
import type { EvaluationEnvironment } from "../evaluation/environment.js";
import { evaluateSimulation } from "../evaluation/evaluate-simulation.js";
import type { FullDuplexSimulationRun, Tick } from "./ticks.js";

// Turning a full-duplex call's ticks into the sequential messages that text machinery reads, with the
// reference's rules (tau2-bench's containment-aware linearisation and its full-duplex evaluators):
//  - speech forms segments per side (a pause of at most `integrationTicks` ticks keeps one segment);
//  - a segment spoken entirely inside the other side's segment is inserted where it ended, splitting
//    the other; otherwise whoever started first comes first (the other side first on a tie);
//  - a tool call is placed at its tick, followed by its results; chunks of one side in a row merge into
//    one message (a space between chunks of different utterances).

/** One side's speech in one tick, as linearisation reads it. */
export interface SpeechChunk {
  role: "assistant" | "user";
  content: string | null;
  utterance_ids: string[] | null;
  contains_speech: boolean;
}

/** What a participant emitted in a tick: speech, or a message carrying tool calls. */
export type SelfChunk = SpeechChunk | ToolCallChunk;

export interface ToolCallChunk {
  role: "assistant" | "user";
  content: string | null;
  tool_calls: ToolCall[];
}

/** A tick from one participant's point of view: what it emitted, what it heard, its tool results. */
export interface ParticipantTick {
  self: SelfChunk | null;
  other: SpeechChunk | null;
  /** Results of its tool calls delivered in this tick. */
  env: readonly ToolMessage[] | null;
}

/** A linearised message before it is written out: speech keeps its utterance ids for merging. */
type Piece =
  | { kind: "speech"; role: "assistant" | "user"; content: string | null; utteranceIds: string[] | null }
  | { kind: "call"; chunk: ToolCallChunk }
  | { kind: "tool"; message: ToolMessage };

/** A tick as the segment collector sees it: `other` may be tool results (expanded from `env`). */
interface FlatTick {
  self: SelfChunk | null;
  other: SpeechChunk | readonly ToolMessage[] | null;
}

const isToolCallChunk = (chunk: SelfChunk | null): chunk is ToolCallChunk =>
  chunk !== null && "tool_calls" in chunk && Array.isArray(chunk.tool_calls);

const isToolResults = (other: FlatTick["other"]): other is readonly ToolMessage[] => Array.isArray(other);

/** Whether a chunk counts in linearisation: speech, a tool call, or tool results. */
function meaningful(chunk: SelfChunk | FlatTick["other"]): boolean {
  if (chunk === null) return false;
  if (Array.isArray(chunk)) return true;
  if (isToolCallChunk(chunk as SelfChunk)) return true;
  return (chunk as SpeechChunk).contains_speech;
}

/**
 * A tick that delivered tool results becomes two: the results as what was heard (with the tick's own
 * output), then the speech heard in it (if any) alone — the reference's layout before linearising.
 */
function expandEnv(ticks: readonly ParticipantTick[]): FlatTick[] {
  const out: FlatTick[] = [];
  for (const tick of ticks) {
    if (tick.env !== null && tick.env.length > 0) {
      out.push({ self: tick.self, other: tick.env });
      if (tick.other !== null) out.push({ self: null, other: tick.other });
    } else out.push({ self: tick.self, other: tick.other });
  }
  return out;
}

interface Segment {
  start: number;
  end: number;
  chunks: Map<number, SpeechChunk>;
}

const PRIORITY_OTHER = 0;
const PRIORITY_SELF = 1;
const PRIORITY_TOOL = 2;
const PRIORITY_CONTINUATION = 3;

interface OutputSegment {
  tick: number;
  priority: number;
  pieces: Piece[];
}

/**
 * The containment-aware linearisation of one participant's ticks (`self` is "assistant" for the agent's
 * view): the messages in conversation order, speech merged per segment.
 */
export function linearizeTicks(ticks: readonly ParticipantTick[], integrationTicks = 1): Message[] {
  const integration = Math.max(1, integrationTicks);
  const flat = expandEnv(ticks);
  const selfSegments: Segment[] = [];
  const otherSegments: Segment[] = [];
  const pairs: { callTick: number; call: ToolCallChunk; result: ToolMessage | null }[] = [];
  const pendingCalls = new Map<string, { tick: number; chunk: ToolCallChunk }>();

  const extend = (segments: Segment[], i: number, chunk: SpeechChunk) => {
    const last = segments.at(-1);
    if (last && i - last.end <= integration) {
      last.chunks.set(i, chunk);
      last.end = i;
    } else segments.push({ start: i, end: i, chunks: new Map([[i, chunk]]) });
  };

  flat.forEach((tick, i) => {
    const selfCall = isToolCallChunk(tick.self);
    if (tick.self !== null && !selfCall && meaningful(tick.self))
      extend(selfSegments, i, tick.self as SpeechChunk);
    if (tick.other !== null && !isToolResults(tick.other) && meaningful(tick.other))
      extend(otherSegments, i, tick.other);
    if (selfCall) {
      const chunk = tick.self as ToolCallChunk;
      if (chunk.tool_calls.length > 0)
        for (const call of chunk.tool_calls) pendingCalls.set(call.id, { tick: i, chunk });
      else pendingCalls.set(`tick_${i}`, { tick: i, chunk });
    }
    if (isToolResults(tick.other)) {
      for (const result of tick.other) {
        let match = result.id ? pendingCalls.get(result.id) : undefined;
        if (match) pendingCalls.delete(result.id);
        else {
          // No call with its id: the latest earlier call takes it.
          let best: [string, { tick: number; chunk: ToolCallChunk }] | undefined;
          for (const entry of pendingCalls) {
            if (entry[1].tick >= i) continue;
            if (!best || entry[1].tick > best[1].tick) best = entry;
          }
          if (best) {
            pendingCalls.delete(best[0]);
            match = best[1];
          }
        }
        if (match) pairs.push({ callTick: match.tick, call: match.chunk, result });
      }
    }
  });
  for (const { tick, chunk } of pendingCalls.values())
    pairs.push({ callTick: tick, call: chunk, result: null });

  return applyContainment(selfSegments, otherSegments, pairs).map(pieceToMessage);
}

function applyContainment(
  selfSegments: readonly Segment[],
  otherSegments: readonly Segment[],
  pairs: readonly { callTick: number; call: ToolCallChunk; result: ToolMessage | null }[],
): Piece[] {
  const out: OutputSegment[] = [];
  const doneSelf = new Set<number>();
  const doneOther = new Set<number>();
  const selfsInOther = new Map<number, number[]>();
  const othersInSelf = new Map<number, number[]>();
  const inside = (a: Segment, b: Segment) => a.start >= b.start && a.end <= b.end;
  selfSegments.forEach((s, si) => {
    otherSegments.forEach((o, oi) => {
      if (inside(s, o)) selfsInOther.set(oi, [...(selfsInOther.get(oi) ?? []), si]);
      else if (inside(o, s)) othersInSelf.set(si, [...(othersInSelf.get(si) ?? []), oi]);
    });
  });
  const chunksOf = (segment: Segment, from: number, to: number) =>
    [...segment.chunks.keys()]
      .sort((a, b) => a - b)
      .filter((t) => t > from && t <= to)
      .map((t) => segment.chunks.get(t)!);
  const all = (segment: Segment) => chunksOf(segment, -Infinity, Infinity);

  for (const [oi, selfs] of selfsInOther) {
    const other = otherSegments[oi]!;
    doneOther.add(oi);
    const sorted = [...selfs].sort((a, b) => selfSegments[a]!.end - selfSegments[b]!.end);
    let split = other.start - 1;
    for (const si of sorted) {
      const self = selfSegments[si]!;
      doneSelf.add(si);
      const before = chunksOf(other, split, self.end);
      if (before.length > 0)
        out.push({ tick: self.end, priority: PRIORITY_OTHER, pieces: consolidate(before) });
      out.push({ tick: self.end, priority: PRIORITY_SELF, pieces: consolidate(all(self)) });
      split = self.end;
    }
    const after = chunksOf(other, split, Infinity);
    if (after.length > 0)
      out.push({ tick: split + 1, priority: PRIORITY_CONTINUATION, pieces: consolidate(after) });
  }
  for (const [si, others] of othersInSelf) {
    if (doneSelf.has(si)) continue;
    const self = selfSegments[si]!;
    doneSelf.add(si);
    const sorted = [...others].sort((a, b) => otherSegments[a]!.end - otherSegments[b]!.end);
    let split = self.start - 1;
    for (const oi of sorted) {
      const other = otherSegments[oi]!;
      doneOther.add(oi);
      const before = chunksOf(self, split, other.end);
      if (before.length > 0)
        out.push({ tick: other.end, priority: PRIORITY_SELF, pieces: consolidate(before) });
      out.push({ tick: other.end, priority: PRIORITY_CONTINUATION, pieces: consolidate(all(other)) });
      split = other.end;
    }
    const after = chunksOf(self, split, Infinity);
    if (after.length > 0) out.push({ tick: split + 1, priority: PRIORITY_SELF, pieces: consolidate(after) });
  }
  selfSegments.forEach((self, si) => {
    if (doneSelf.has(si)) return;
    doneSelf.add(si);
    const crossing = otherSegments.flatMap((o, oi) =>
      !doneOther.has(oi) && !(o.end < self.start || self.end < o.start) ? [oi] : [],
    );
    for (const oi of crossing) {
      doneOther.add(oi);
      const other = otherSegments[oi]!;
      out.push({ tick: other.start, priority: PRIORITY_OTHER, pieces: consolidate(all(other)) });
    }
    out.push({ tick: self.start, priority: PRIORITY_SELF, pieces: consolidate(all(self)) });
  });
  otherSegments.forEach((other, oi) => {
    if (!doneOther.has(oi))
      out.push({ tick: other.start, priority: PRIORITY_OTHER, pieces: consolidate(all(other)) });
  });
  // Tool calls at their tick, each message followed by its results.
  const groups = new Map<ToolCallChunk, { tick: number; results: ToolMessage[] }>();
  for (const pair of pairs) {
    let group = groups.get(pair.call);
    if (!group) groups.set(pair.call, (group = { tick: pair.callTick, results: [] }));
    if (pair.result) group.results.push(pair.result);
  }
  for (const [call, group] of groups)
    out.push({
      tick: group.tick,
      priority: PRIORITY_TOOL,
      pieces: [
        { kind: "call", chunk: call },
        ...group.results.map((message) => ({ kind: "tool" as const, message })),
      ],
    });
  // A stable sort, as the reference's.
  out.sort((a, b) => a.tick - b.tick || a.priority - b.priority);
  return out.flatMap((segment) => segment.pieces);
}

/** Chunks in a row merged into one message per run of the same role. */
function consolidate(chunks: readonly SpeechChunk[]): Piece[] {
  const out: Piece[] = [];
  for (const chunk of chunks) {
    const last = out.at(-1);
    const piece: Piece = {
      kind: "speech",
      role: chunk.role,
      content: chunk.content,
      utteranceIds: chunk.utterance_ids,
    };
    if (last?.kind === "speech" && last.role === chunk.role) out[out.length - 1] = mergeSpeech([last, piece]);
    else out.push(piece);
  }
  return out;
}

type SpeechPiece = Extract<Piece, { kind: "speech" }>;

/**
 * Chunks of speech merged into one message: texts joined, with a space where a chunk starts another
 * utterance than the chunk before it; utterance ids kept in order, once each.
 */
function mergeSpeech(chunks: readonly SpeechPiece[]): SpeechPiece {
  if (chunks.length === 1) return chunks[0]!;
  let content = "";
  let previous: Set<string> = new Set();
  for (const chunk of chunks) {
    if (!chunk.content) continue;
    const ids = new Set(chunk.utteranceIds ?? []);
    if (content !== "" && ids.size > 0 && previous.size > 0 && [...ids].every((id) => !previous.has(id)))
      content += " ";
    content += chunk.content;
    previous = ids;
  }
  const ids = [...new Set(chunks.flatMap((chunk) => chunk.utteranceIds ?? []))];
  return { kind: "speech", role: chunks[0]!.role, content, utteranceIds: ids.length > 0 ? ids : null };
}

function pieceToMessage(piece: Piece): Message {
  if (piece.kind === "tool") return piece.message;
  if (piece.kind === "call")
    return piece.chunk.role === "assistant"
      ? ({
          role: "assistant",
          content: piece.chunk.content,
          tool_calls: piece.chunk.tool_calls,
        } as AssistantMessage)
      : ({ role: "user", content: piece.chunk.content, tool_calls: piece.chunk.tool_calls } as UserMessage);
  return { role: piece.role, content: piece.content };
}

// ---------------------------------------------------------------------------------------------------
// The evaluators' views of a call (the reference's full-duplex evaluators).

/**
 * The tool calls of a call in the order they ran, each message followed by its results: in each tick
 * the customer's calls, then the agent's (the environment and action checks replay and read these).
 */
export function toolTrajectory(ticks: readonly Tick[]): Message[] {
  const out: Message[] = [];
  for (const tick of ticks) {
    if (tick.user_tool_calls.length > 0) {
      out.push({
        role: "user",
        content: tick.user_chunk?.content ?? null,
        tool_calls: tick.user_tool_calls,
        timestamp: tick.user_chunk?.timestamp ?? tick.timestamp,
      });
      out.push(...tick.user_tool_results);
    }
    if (tick.agent_tool_calls.length > 0) {
      out.push({
        role: "assistant",
        content: tick.agent_chunk?.content ?? null,
        tool_calls: tick.agent_tool_calls,
        timestamp: tick.agent_chunk?.timestamp ?? tick.timestamp,
      });
      out.push(...tick.agent_tool_results);
    }
  }
  return out;
}

/**
 * What the agent said, one message per utterance: its chunks in a row that share an utterance id merge
 * (the communicate check searches these); a chunk without ids stands alone.
 */
export function agentUtterances(ticks: readonly Tick[]): AssistantMessage[] {
  const chunks = ticks.flatMap((tick) => (tick.agent_chunk ? [tick.agent_chunk] : []));
  const out: AssistantMessage[] = [];
  let group: SpeechPiece[] = [];
  let ids = new Set<string>();
  const flush = () => {
    if (group.length === 0) return;
    const merged = mergeSpeech(group);
    out.push({ role: "assistant", content: merged.content });
  };
  for (const chunk of chunks) {
    const piece: SpeechPiece = {
      kind: "speech",
      role: "assistant",
      content: chunk.content,
      utteranceIds: chunk.utterance_ids,
    };
    const own = new Set(chunk.utterance_ids ?? []);
    if (group.length > 0 && ids.size > 0 && own.size > 0 && [...own].some((id) => ids.has(id))) {
      group.push(piece);
      for (const id of own) ids.add(id);
    } else {
      flush();
      group = [piece];
      ids = own;
    }
  }
  flush();
  return out;
}

/** The conversation's speech from the agent's side, linearised (what the NL-assertion judge reads). */
export function spokenConversation(ticks: readonly Tick[]): Message[] {
  return linearizeTicks(
    ticks.map((tick) => ({
      self: tick.agent_chunk ? speechOf(tick.agent_chunk) : null,
      other: tick.user_chunk ? speechOf(tick.user_chunk) : null,
      env: null,
    })),
  );
}

/**
 * The whole conversation from the agent's side — speech, and the agent's tool calls with their results
 * — linearised with `integrationTicks` (a readable `messages` for the call's record).
 */
export function conversationMessages(ticks: readonly Tick[], integrationTicks = 1): Message[] {
  const participant: ParticipantTick[] = ticks.map((tick, i) => {
    const previous = i > 0 ? ticks[i - 1]! : undefined;
    const speech = tick.agent_chunk ? speechOf(tick.agent_chunk) : null;
    const self: SelfChunk | null =
      tick.agent_tool_calls.length > 0
        ? { role: "assistant", content: tick.agent_chunk?.content ?? null, tool_calls: tick.agent_tool_calls }
        : speech;
    return {
      self,
      other: tick.user_chunk?.contains_speech ? speechOf(tick.user_chunk) : null,
      // Results reach the agent one tick after its call.
      env: previous && previous.agent_tool_results.length > 0 ? previous.agent_tool_results : null,
    };
  });
  return linearizeTicks(participant, integrationTicks);
}

function speechOf(chunk: NonNullable<Tick["agent_chunk"]>): SpeechChunk {
  return {
    role: chunk.role,
    content: chunk.content,
    utterance_ids: chunk.utterance_ids,
    contains_speech: chunk.contains_speech,
  };
}

/**
 * Grade a call as the reference grades full-duplex runs: the environment is rebuilt from the tool calls
 * in the order they ran and compared with the gold world, the action check reads the same calls, the
 * communicate check the agent's utterances, and the NL-assertion judge the linearised speech; reward 0
 * unless the customer or the agent ended the call.
 */
export function gradeVoiceCall(
  task: Task,
  simulation: Pick<FullDuplexSimulationRun, "termination_reason" | "ticks">,
  env: EvaluationEnvironment,
  judge?: Judge,
): Promise<RewardInfo> {
  const { ticks } = simulation;
  return evaluateSimulation(
    {
      termination_reason: simulation.termination_reason,
      messages: toolTrajectory(ticks),
      views: {
        tools: toolTrajectory(ticks),
        communicate: agentUtterances(ticks),
        nl: spokenConversation(ticks),
      },
    },
    task,
    env,
    judge,
  );
}
