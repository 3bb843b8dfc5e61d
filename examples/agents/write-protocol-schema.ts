/**
 * Writes `remote-agent-protocol.schema.json` beside this file: the JSON Schema of passk's plain HTTP agent
 * protocol and of its A2A message metadata, from the zod schemas passk parses them with. A test checks
 * that the file stays equal to them.
 *
 *   npx tsx examples/agents/write-protocol-schema.ts
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { format } from "prettier";
import { remoteAgentProtocolJsonSchema } from "../../src/agents/remote/protocol.js";

const file = path.join(import.meta.dirname, "remote-agent-protocol.schema.json");
writeFileSync(
  file,
  await format(JSON.stringify(remoteAgentProtocolJsonSchema()), { parser: "json", printWidth: 110 }),
);
console.log(`wrote ${file}`);
