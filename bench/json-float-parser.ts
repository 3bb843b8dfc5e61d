/**
 * The float-preserving JSON reader on hostile text: 4 MB of digits (what fits in one MCP request) in a
 * string, as a number, and as a float's fraction, each beside a JSON-RPC `"2.0"` (which sends the reader
 * down its float path), against `JSON.parse` of the same text. Linear time means milliseconds here; the
 * backtracking regex it replaced needed hours. Median of 5 warm passes, one core.
 *
 * Usage: node --import tsx bench/json-float-parser.ts   (run by `npm run bench`)
 */
import os from "node:os";
import { parseJsonKeepingPyFloats } from "../src/python/py-float.js";

const PASSES = 5;
const DIGITS = 4 * 1024 * 1024;
const digits = "9".repeat(DIGITS);
const texts = {
  digits_in_a_string: `{"jsonrpc":"2.0","params":{"arguments":{"expression":"${digits}"}}}`,
  digits_as_a_number: `{"jsonrpc":"2.0","params":{"arguments":{"amount":${digits}}}}`,
  digits_as_a_fraction: `{"jsonrpc":"2.0","params":{"arguments":{"amount":1.${digits}}}}`,
};

function medianMs(parse: (text: string) => unknown, text: string): number {
  parse(text);
  const passes: number[] = [];
  for (let i = 0; i < PASSES; i++) {
    const start = performance.now();
    parse(text);
    passes.push(performance.now() - start);
  }
  return Number(passes.sort((a, b) => a - b)[Math.floor(PASSES / 2)]!.toFixed(2));
}

const figures: Record<string, { passk_ms: number; json_parse_ms: number }> = {};
for (const [name, text] of Object.entries(texts))
  figures[name] = {
    passk_ms: medianMs(parseJsonKeepingPyFloats, text),
    json_parse_ms: medianMs(JSON.parse, text),
  };
console.log(
  JSON.stringify({
    bench: "json-float-parser",
    digits: DIGITS,
    ...figures,
    load_average: os.loadavg().map((l) => Number(l.toFixed(2))),
  }),
);
