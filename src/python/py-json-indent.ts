import { isPyFloat } from "./py-float.js";
import { PyFloat } from "./py-float-value.js";
import { pyFloatRepr, pyJsonString } from "./py-json.js";

/**
 * The text Python's `json.dumps(value, indent=2)` writes (the official τ² task files): two-space
 * indentation, `": "` after keys, `ensure_ascii`, no trailing newline. Whole numbers print as ints,
 * fractional numbers and whole ones marked as floats (see py-float.ts: `parseJsonKeepingPyFloats` marks
 * the `2.0` of a file) through `repr` (`2.0`, `15.1`, `1e-05`). A whole number at the top level has no
 * holder to carry a mark and prints as an int.
 *
 * @example
 * const task = parseJsonKeepingPyFloats('{"gb_amount": 2.0, "ids": []}');
 * formatPyJson(task) // '{\n  "gb_amount": 2.0,\n  "ids": []\n}'
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

  write(value: unknown, current: string, asFloat = false): string {
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
        return Number.isInteger(value) && !asFloat ? BigInt(value).toString() : pyFloatRepr(value);
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
      const items = value.map((item, index) => inner + this.write(item, inner, markedFloat(value, index)));
      return `[\n${items.join(",\n")}\n${current}]`;
    }
    const entries = value instanceof Map ? [...(value as Map<unknown, unknown>)] : Object.entries(value);
    if (entries.length === 0) return "{}";
    // Marks live on plain objects and arrays (a Map's values are never marked).
    const marks = !(value instanceof Map);
    const members = entries.map(([key, item]) => {
      const asFloat = marks && markedFloat(value, key as string);
      return `${inner}${this.write(String(key), inner)}: ${this.write(item, inner, asFloat)}`;
    });
    return `{\n${members.join(",\n")}\n${current}}`;
  }
}

/** Whether `holder[key]` is a whole number marked as a Python float (fractional ones need no mark). */
function markedFloat(holder: object, key: string | number): boolean {
  const item = (holder as Record<string | number, unknown>)[key];
  return typeof item === "number" && Number.isInteger(item) && isPyFloat(holder, key);
}
