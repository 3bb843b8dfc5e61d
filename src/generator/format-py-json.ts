import { pyFloatRepr, pyJsonString } from "../python/py-json.js";
import { PyFloat } from "./py-float.js";

/**
 * The text Python's `json.dumps(value, indent=2)` writes (the official τ² task files): two-space
 * indentation, `": "` after keys, `ensure_ascii`, no trailing newline. Whole numbers print as ints,
 * `PyFloat` and fractional numbers through `repr` (`2.0`, `15.1`, `1e-05`).
 *
 * @example
 * formatPyJson({ gb_amount: new PyFloat(2), ids: [] }) // '{\n  "gb_amount": 2.0,\n  "ids": []\n}'
 */
export function formatPyJson(value: unknown, indent = 2): string {
  return new PyJsonWriter(" ".repeat(indent)).write(value, "");
}

/**
 * Generated task lists share most of their objects and strings (the same assertions, templates and
 * persona texts in thousands of tasks), so each is rendered once per indentation depth.
 */
class PyJsonWriter {
  readonly #strings = new Map<string, string>();
  readonly #containers = new WeakMap<object, Map<string, string>>();

  constructor(readonly step: string) {}

  write(value: unknown, current: string): string {
    if (value === null || value === undefined) return "null";
    switch (typeof value) {
      case "string": {
        let text = this.#strings.get(value);
        if (text === undefined) {
          text = pyJsonString(value);
          this.#strings.set(value, text);
        }
        return text;
      }
      case "boolean":
        return value ? "true" : "false";
      case "number":
        return Number.isInteger(value) ? BigInt(value).toString() : pyFloatRepr(value);
      case "object":
        break;
      default:
        throw new TypeError(`cannot write a ${typeof value} as JSON`);
    }
    if (value instanceof PyFloat) return pyFloatRepr(value.value);
    let byDepth = this.#containers.get(value);
    let text = byDepth?.get(current);
    if (text === undefined) {
      text = this.#container(value, current);
      if (!byDepth) this.#containers.set(value, (byDepth = new Map()));
      byDepth.set(current, text);
    }
    return text;
  }

  #container(value: object, current: string): string {
    const inner = current + this.step;
    if (Array.isArray(value)) {
      if (value.length === 0) return "[]";
      const items = value.map((item) => inner + this.write(item, inner));
      return `[\n${items.join(",\n")}\n${current}]`;
    }
    const entries = value instanceof Map ? [...(value as Map<unknown, unknown>)] : Object.entries(value);
    if (entries.length === 0) return "{}";
    const members = entries.map(
      ([key, item]) => `${inner}${this.write(String(key), inner)}: ${this.write(item, inner)}`,
    );
    return `{\n${members.join(",\n")}\n${current}}`;
  }
}
