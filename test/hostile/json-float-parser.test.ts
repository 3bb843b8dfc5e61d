import { describe, expect, it } from "vitest";
import { McpToolServer } from "../../src/agents/remote/mcp-tool-server.js";
import { isPyFloat, parseJsonKeepingPyFloats } from "../../src/python/py-float.js";

// The float-preserving JSON reader sees hostile text: a remote agent's MCP requests, results files
// uploaded to `passk serve`, files given to `passk report|score|import`. A backtracking regex over the
// whole text made a long run of digits cost quadratic time (100k digits: 15 s of a blocked event loop).

const DIGITS = 100_000;
const run = "9".repeat(DIGITS);
/** Generous for a linear pass over ~100 KB (a few ms), far below the 15 s the regex took. */
const BUDGET_MS = 1_000;

const adversarial: Array<[string, string]> = [
  ["digits in a string beside a JSON-RPC version", `{"jsonrpc":"2.0","params":{"x":"${run}"}}`],
  ["a huge integer beside a JSON-RPC version", `{"jsonrpc":"2.0","params":{"x":${run}}}`],
  ["a float with a huge integer part", `{"a":2.0,"x":${run}.0}`],
  ["a float with a huge fraction", `{"a":2.0,"x":1.${run}}`],
  ["a huge exponent", `{"a":2.0,"x":1e${run}}`],
  ["a huge negative exponent", `{"a":2.0,"x":1.0e-${run}}`],
  ["zeros after a point, then a digit", `{"x":[1.${"0".repeat(DIGITS)}1]}`],
  ["zeros after a point, then a delimiter", `{"x":[1.${"0".repeat(DIGITS)}]}`],
  ["digits then a point in a string", `{"a":2.0,"x":"${run}."}`],
  ["digits then an e in a string", `{"a":2.0,"x":"${run}e"}`],
  ["digits then a point and a delimiter in a string", `{"a":2.0,"x":"${run}.0,"}`],
  ["a float look-alike in a string before digits", `{"note":"2.0,","x":"${run}"}`],
  ["a float look-alike in a string after digits", `{"x":"${run}","note":"2.0}"}`],
  ["digits in a key", `{"a":2.0,"${run}":1}`],
  ["many points", `{"a":2.0,"x":"${"1.".repeat(DIGITS / 2)}"}`],
  ["many exponents", `{"a":2.0,"x":"${"9e".repeat(DIGITS / 2)}"}`],
  ["many minus signs", `{"a":2.0,"x":"${"-".repeat(DIGITS)}9"}`],
  ["many escaped quotes", `{"a":2.0,"x":"${'\\"'.repeat(DIGITS / 2)}"}`],
  ["many backslashes", `{"a":2.0,"x":"${"\\\\".repeat(DIGITS / 2)}"}`],
  ["digits separated by spaces", `{"a":2.0,"x":"${"9 ".repeat(DIGITS / 2)}"}`],
  ["digits and spaces before a delimiter", `{"a":2.0,"x":"${run}${" ".repeat(DIGITS)},"}`],
  ["ten thousand integral floats", `[${Array.from({ length: 10_000 }, () => "2.0").join(",")}]`],
  [
    "ten thousand floats with long fractions",
    `[${Array.from({ length: 10_000 }, () => "1.0000000001").join(",")}]`,
  ],
  [
    "digit runs in many strings",
    `{"a":2.0,"x":[${Array.from({ length: 100 }, () => `"${"9".repeat(1000)}"`).join(",")}]}`,
  ],
];

describe("the float-preserving JSON reader on adversarial text", () => {
  it.each(adversarial)("%s: parsed in linear time", (_name, text) => {
    const start = performance.now();
    const value = parseJsonKeepingPyFloats(text);
    const elapsed = performance.now() - start;
    expect(elapsed).toBeLessThan(BUDGET_MS);
    expect(value).toEqual(JSON.parse(text));
  });

  const broken: Array<[string, string]> = [
    ["an unterminated string of digits", `{"jsonrpc":"2.0","x":"${run}`],
    ["an unterminated number", `{"jsonrpc":"2.0","x":${run}`],
    ["a number followed by garbage", `{"jsonrpc":"2.0","x":${run}.0 garbage}`],
    ["a float look-alike in a string, then garbage", `{"note":"2.0,","x":${run}x}`],
  ];
  it.each(broken)("%s: refused at once with JSON.parse's own sentence", (_name, text) => {
    const start = performance.now();
    let expected: unknown;
    try {
      JSON.parse(text);
    } catch (error) {
      expected = (error as Error).message;
    }
    expect(() => parseJsonKeepingPyFloats(text)).toThrow(SyntaxError);
    expect(() => parseJsonKeepingPyFloats(text)).toThrow(String(expected));
    expect(performance.now() - start).toBeLessThan(2 * BUDGET_MS);
  });

  it("a string shaped like the reader's internal float tag stays a string", () => {
    const value = parseJsonKeepingPyFloats(
      '{"jsonrpc":"2.0","x":"\\u0000passk-py-float:5","y":["\\u0000passk-py-float:2.0"],"z":3.0}',
    ) as { x: unknown; y: unknown[]; z: number };
    expect(value.x).toBe("\u0000passk-py-float:5");
    expect(value.y[0]).toBe("\u0000passk-py-float:2.0");
    expect(isPyFloat(value, "z")).toBe(true);
  });
});

/**
 * The reader as it was (a regex fast path, a regex tokenizer as fallback), kept here as the oracle of its
 * semantics on small inputs: integral numbers written as floats inside a container are marked, nothing
 * else is. Its marks are returned as paths.
 */
function regexReader(text: string): { value: unknown; marked: string[] } {
  const tag = "\u0000reference-float:";
  const candidate = /\d\.0+(?!\d)|\d[eE][+-]?\d/;
  const floatLiterals = /-?\d+\.\d+(?:[eE][+-]?\d+)?(?=\s*[,\]}])|-?\d+[eE][+-]?\d+(?=\s*[,\]}])/g;
  const allTokens = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?[eE][+-]?\d+|-?\d+\.\d+/g;
  const tagIntegral = (token: string) =>
    token.startsWith('"') || !/[.eE]/.test(token) || !Number.isInteger(Number(token))
      ? token
      : `"\\u0000${tag.slice(1)}${token}"`;
  if (!candidate.test(text)) return { value: JSON.parse(text), marked: [] };
  let value: unknown;
  try {
    value = JSON.parse(text.replace(floatLiterals, tagIntegral));
  } catch {
    value = JSON.parse(text.replace(allTokens, tagIntegral));
  }
  const marked: string[] = [];
  const walk = (node: unknown, at: string) => {
    if (typeof node !== "object" || node === null) return;
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = record[key];
      if (typeof child === "string" && child.startsWith(tag)) {
        record[key] = Number(child.slice(tag.length));
        marked.push(`${at}/${key}`);
      } else walk(child, `${at}/${key}`);
    }
  };
  walk(value, "");
  return { value, marked };
}

/** Paths of the integral numbers the reader marked as floats. */
function markedPaths(value: unknown): string[] {
  const marked: string[] = [];
  const walk = (node: unknown, at: string) => {
    if (typeof node !== "object" || node === null) return;
    for (const key of Object.keys(node)) {
      const child = (node as Record<string, unknown>)[key];
      if (typeof child === "number" && Number.isInteger(child) && isPyFloat(node, key))
        marked.push(`${at}/${key}`);
      else walk(child, `${at}/${key}`);
    }
  };
  walk(value, "");
  return marked;
}

/** A seeded generator of small JSON texts rich in float look-alikes, in and out of strings. */
function randomJson(seed: number): () => string {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const numbers = [
    "2.0",
    "2",
    "-0.0",
    "0",
    "15.1",
    "1e3",
    "1E3",
    "1e-3",
    "1.5e1",
    "2.50",
    "1e400",
    "-3.000",
    "1.0000000000000000001",
    "0.99999999999999999999",
    "123456789012345678901234567890.0",
    "7E+2",
    "7e-0",
    "100",
    "-1",
    "0.5",
    "3.0e0",
    "4.25E-2",
  ];
  const strings = [
    "2.0 GB",
    "ratio 2.0, fine",
    "x 1.0}",
    "1e3]",
    '\\"2.0\\"',
    "\\\\",
    "a\\nb",
    "",
    "[2.0]",
    '{\\"a\\": 2.0}',
    "12.0 ,",
    "π 3.0",
    "-4.0,",
    "\\u0032.0",
  ];
  const space = () => pick(["", " ", "\n  ", "\t"]);
  const value = (depth: number): string => {
    const kind = depth > 3 ? pick(["n", "s", "l"]) : pick(["n", "s", "l", "o", "a", "o", "a"]);
    if (kind === "n") return pick(numbers);
    if (kind === "s") return `"${pick(strings)}"`;
    if (kind === "l") return pick(["true", "false", "null"]);
    const size = Math.floor(next() * 4);
    const items = Array.from({ length: size }, (_, i) =>
      kind === "a"
        ? `${space()}${value(depth + 1)}${space()}`
        : `${space()}"${pick(["k", "2.0", "a,1.0", String(i)])}${i}"${space()}:${space()}${value(depth + 1)}${space()}`,
    );
    return kind === "a" ? `[${items.join(",")}]` : `{${items.join(",")}}`;
  };
  return () => value(0);
}

describe("the linear reader keeps the regex reader's exact semantics", () => {
  it.each(Array.from({ length: 20 }, (_, i) => i + 1))(
    "seed %i: 100 random documents give the same values and the same float marks",
    (seed) => {
      const generate = randomJson(seed * 7919);
      for (let n = 0; n < 100; n++) {
        const text = generate();
        const reference = regexReader(text);
        const value = parseJsonKeepingPyFloats(text);
        expect(value, text).toEqual(reference.value);
        expect(markedPaths(value).sort(), text).toEqual(reference.marked.sort());
      }
    },
  );
});

describe("a remote agent's MCP request with a long digit run", () => {
  const server = new McpToolServer();
  it("is answered at once and leaves the event loop free", async () => {
    const received: Array<Record<string, unknown>> = [];
    const endpoint = await server.open({
      tools: [{ name: "calculate", description: "d", parameters: { type: "object", properties: {} } }],
      callTool: async (_name, args) => {
        received.push(args);
        return { content: "ok", error: false };
      },
    });
    try {
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 5);
      const start = performance.now();
      const response = await fetch(endpoint.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${endpoint.token}`,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "calculate", arguments: { expression: run, scale: 2.0 } },
        }),
      });
      const body = (await response.json()) as { result?: { content: Array<{ text: string }> } };
      const elapsed = performance.now() - start;
      clearInterval(ticker);
      expect(response.status).toBe(200);
      expect(body.result?.content[0]?.text).toBe("ok");
      expect(received[0]?.expression).toHaveLength(DIGITS);
      expect(elapsed).toBeLessThan(2 * BUDGET_MS);
      expect(ticks).toBeGreaterThan(0);
    } finally {
      await endpoint.close();
    }
  });
});
