/** The job queue's interface lives in core/ (the runner drives it, stores implement it). */
export type {
  CompleteResult,
  EnqueueResult,
  Job,
  JobCounts,
  JobKey,
  JobQueue,
  JobState,
} from "../core/job-queue.js";
