const MARKER = Symbol.for("passk.error");

/**
 * Base class of every error passk raises on purpose. `code` is stable and can be branched on;
 * the message names the offending input, what was expected and how to fix it.
 * `isInstance` survives duplicated package copies where `instanceof` fails: `ConfigError.isInstance(e)`
 * is true for a ConfigError (or a subclass of it) from any copy, `PasskError.isInstance(e)` for any of them.
 */
export class PasskError extends Error {
  readonly [MARKER] = true;
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PasskError";
    this.code = code;
  }

  static isInstance<T extends PasskError>(
    this: abstract new (...args: never[]) => T,
    value: unknown,
  ): value is T {
    if (typeof value !== "object" || value === null || (value as { [MARKER]?: boolean })[MARKER] !== true)
      return false;
    // Classes are matched by name along the prototype chain: another copy's classes are other objects.
    let proto: unknown = Object.getPrototypeOf(value);
    while (proto !== null) {
      if ((proto as { constructor?: { name?: unknown } }).constructor?.name === this.name) return true;
      proto = Object.getPrototypeOf(proto);
    }
    return false;
  }
}

/** One problem found in an input file, with the JSON path where it sits. */
export interface InputProblem {
  path: string;
  message: string;
  /** The task the problem belongs to, when the file holds tasks. */
  taskId?: string;
}

/** A data, task or results file that does not have the expected shape. Nothing from it is used. */
export class InvalidInputFileError extends PasskError {
  readonly file: string;
  readonly problems: InputProblem[];
  readonly hint: string;

  constructor(file: string, problems: InputProblem[], hint: string) {
    const lines = problems
      .slice(0, 20)
      .map((p) => `  - ${p.taskId !== undefined ? `task "${p.taskId}": ` : ""}${p.path}: ${p.message}`);
    if (problems.length > 20) lines.push(`  … and ${problems.length - 20} more`);
    super(
      "invalid_input_file",
      `${file} is not valid (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n${lines.join("\n")}\nFix: ${hint}`,
    );
    this.name = "InvalidInputFileError";
    this.file = file;
    this.problems = problems;
    this.hint = hint;
  }
}

/** A name (domain, task id, tool, split…) that is not among the known ones. */
export class UnknownNameError extends PasskError {
  readonly kind: string;
  readonly value: string;
  readonly known: readonly string[];

  constructor(kind: string, value: string, known: readonly string[], fix?: string) {
    const shown = known.length > 12 ? [...known.slice(0, 12), `… ${known.length - 12} more`] : known;
    const suggestion = closest(value, known);
    super(
      `unknown_${kind.replace(/[^a-z]+/gi, "_").toLowerCase()}`,
      `${kind} "${value}" is not known (known: ${shown.join(", ") || "none"})` +
        (suggestion ? `; did you mean "${suggestion}"?` : "") +
        (fix ? ` ${fix}` : ""),
    );
    this.name = "UnknownNameError";
    this.kind = kind;
    this.value = value;
    this.known = known;
  }
}

/** A configuration problem the user must fix (flags, env vars, missing directories or keys). */
export class ConfigError extends PasskError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("config", message, options);
    this.name = "ConfigError";
  }
}

/** Levenshtein-closest candidate within a small distance, for "did you mean" hints. */
export function closest(value: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(value.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(value.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return best;
}

/** Levenshtein distance between two strings. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

/** Raised when a run is cancelled (Ctrl-C): the conversation is incomplete and must not be graded. */
export class SimulationAbortedError extends Error {
  constructor() {
    super("the simulation was interrupted");
    this.name = "SimulationAbortedError";
  }
}
