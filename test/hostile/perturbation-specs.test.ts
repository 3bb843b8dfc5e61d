import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/core/errors.js";
import { createPerturbationRegistry } from "../../src/perturbations/registry.js";

// Hostile `--perturb` specs (also what `POST /api/conversations` accepts): a setting named after an
// object's internals was silently dropped (`tool-faults:__proto__=1` ran as plain `tool-faults@1`), and a
// setting given twice let the last one win, while the run's identity kept whatever was written.

const registry = createPerturbationRegistry();
const names = [
  "tool-faults",
  "tool-injection",
  "customer-injection",
  "persona",
  "omission",
  "false-claim",
  "change-of-mind",
];
const internals = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "__defineGetter__",
];

describe("a perturbation setting named after an object's internals", () => {
  it.each(names.flatMap((name) => internals.map((key) => [name, key] as const)))(
    "%s:%s=1 is refused as an unknown setting",
    (name, key) => {
      const spec = `${name}:${key}=1`;
      let error: unknown;
      try {
        registry.resolve(spec);
      } catch (e) {
        error = e;
      }
      expect(ConfigError.isInstance(error), `${spec} was accepted`).toBe(true);
      expect((error as Error).message).toContain(`${name} has no setting ${key}`);
      expect(Object.prototype).not.toHaveProperty("polluted");
    },
  );
});

describe("a perturbation setting given twice", () => {
  it.each([
    "tool-faults:rate=0.2,rate=0.3",
    "tool-faults:rate=0.2,rate=0.2",
    "tool-faults:rate=0.2, rate =0.3",
    "tool-faults:kinds=transient,rate=0.1,kinds=timeout",
    "persona:trait=terse,trait=impatient",
    "customer-injection:rate=0.5,rate=0.1",
  ])("%s is refused, naming the setting", (spec) => {
    expect(() => registry.resolve(spec)).toThrow(/ is given twice; give each setting once/);
  });

  it("a setting given once still resolves to its canonical spec", () => {
    expect(registry.resolve("tool-faults:rate=0.3,kinds=transient").spec).toBe(
      "tool-faults@1:kinds=transient,rate=0.3",
    );
  });
});

describe("a number written oddly", () => {
  // `rate=0x1` and `rate=000…0.5` were kept verbatim in the run's identity: one setting, many spellings.
  it.each([
    ["tool-faults:rate=0x1", "tool-faults@1:rate=1"],
    [`customer-injection:rate=${"0".repeat(10_000)}.5`, "customer-injection@1:rate=0.5"],
    ["tool-faults:rate=.50", "tool-faults@1:rate=0.5"],
    ["tool-faults:rate=5e-1", "tool-faults@1:rate=0.5"],
  ])("%s is written as its value: %s", (spec, canonical) => {
    expect(registry.resolve(spec).spec).toBe(canonical);
  });

  it("one setting spelled two ways is one identity", () => {
    expect(registry.resolve("tool-faults:rate=0.50").spec).toBe(registry.resolve("tool-faults:rate=.5").spec);
  });
});
