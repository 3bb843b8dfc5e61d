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
  type GymReset,
  type GymStart,
} from "./agent-gym.js";
export { gymActionOf, GymStateError, type GymObservation } from "./episode.js";
export {
  UserGym,
  UserGymActionSchema,
  UserGymResetSchema,
  type UserGymAction,
  type UserGymOptions,
  type UserGymReset,
  type UserGymStart,
} from "./user-gym.js";
export { GymSessions, GymSessionNotFoundError, GymSessionsFullError } from "./gym-sessions.js";
export { gymApiJsonSchema } from "./gym-api.js";
