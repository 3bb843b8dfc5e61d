import type { z } from "zod";
import { ApnSettingsSchema, NetworkModePreferenceSchema } from "./user-db-schema.js";

// The named types the reference's telecom tool signatures use, for rebuilding their parameter schemas
// from the upstream source: `APNSettings` (a pydantic model, with the `APNNames` Enum inside) and the
// `NetworkModePreference` Enum. Their zod schemas carry meta ids, which name the `$defs` entries.

export const TAU2_TYPES: ReadonlyMap<string, z.ZodType> = new Map<string, z.ZodType>([
  ["APNSettings", ApnSettingsSchema],
  ["NetworkModePreference", NetworkModePreferenceSchema],
]);
