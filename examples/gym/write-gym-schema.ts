/**
 * Writes `gym-api.schema.json` beside this file: the JSON Schema of the HTTP gym's bodies, from the zod
 * schemas passk checks them with. A test checks that the file stays equal to them.
 *
 *   npx tsx examples/gym/write-gym-schema.ts
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { format } from "prettier";
import { gymApiJsonSchema } from "../../src/gym/gym-api.js";

const file = path.join(import.meta.dirname, "gym-api.schema.json");
writeFileSync(file, await format(JSON.stringify(gymApiJsonSchema()), { parser: "json", printWidth: 110 }));
console.log(`wrote ${file}`);
