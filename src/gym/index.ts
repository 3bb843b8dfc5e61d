/**
 * `passk/gym`: play one side of a τ² conversation from your own loop (reinforcement learning, other
 * harnesses), graded as `passk run` grades it.
 */
export {
  AgentGym,
  builtinDomainData,
  GymActionSchema,
  GymResetSchema,
  type AgentGymOptions,
  type GymAction,
  type GymObservation,
  type GymReset,
  type GymStart,
} from "./agent-gym.js";
