import {
  TurnCheckpointSchema,
  type CheckpointStore,
  type ConversationKey,
  type TurnCheckpoint,
} from "../core/run-store.js";
import { parseJsonKeepingPyFloats, stringifyKeepingPyFloats } from "../python/py-float.js";
import { openRedisClient } from "./redis-client.js";
import type { RedisAddress } from "./redis-url.js";

/** How long a conversation's checkpoint outlives its last turn (an abandoned run's are dropped by Redis). */
const CHECKPOINT_TTL_SECONDS = 7 * 24 * 3600;

/** The Redis key of a conversation's checkpoint (beside BullMQ's `bull:` keys). */
export function checkpointKey(key: ConversationKey): string {
  return `passk:checkpoint:${JSON.stringify([key.runId, key.domain, key.taskId, key.trial])}`;
}

/**
 * {@link CheckpointStore} in Redis, shared by every worker: a stalled conversation re-run on another
 * machine continues from the last turn the lost worker saved. One `SET … EX` a turn (the whole
 * conversation so far, JSON keeping Python float marks), so two attempts of one conversation can never
 * leave a mixture of both.
 */
export function redisCheckpointStore(address: RedisAddress): CheckpointStore & { close(): void } {
  const client = openRedisClient(address, { connectTimeout: 3000, maxRetriesPerRequest: 2 });
  // Faults surface on the commands that meet them: a lost checkpoint only costs a longer re-run.
  client.on("error", () => undefined);
  return {
    async load(key: ConversationKey): Promise<TurnCheckpoint | undefined> {
      const text = await client.get(checkpointKey(key));
      if (text === null) return undefined;
      const parsed = TurnCheckpointSchema.safeParse(parseJsonKeepingPyFloats(text));
      return parsed.success ? parsed.data : undefined;
    },
    async save(key: ConversationKey, checkpoint: TurnCheckpoint): Promise<void> {
      await client.set(
        checkpointKey(key),
        stringifyKeepingPyFloats(checkpoint),
        "EX",
        CHECKPOINT_TTL_SECONDS,
      );
    },
    async clear(key: ConversationKey): Promise<void> {
      await client.del(checkpointKey(key));
    },
    close: () => client.disconnect(),
  };
}
