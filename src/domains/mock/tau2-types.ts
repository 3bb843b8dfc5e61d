import type { z } from "zod";
import { TaskStatusSchema } from "./db-schema.js";

// The named types the reference's mock tool signatures use (`TaskStatus` is a `Literal` alias
// upstream), for rebuilding their parameter schemas from the upstream source.

export const TAU2_TYPES: ReadonlyMap<string, z.ZodType> = new Map<string, z.ZodType>([
  ["TaskStatus", TaskStatusSchema],
]);
