import { PythonSyntaxError } from "./errors.js";
import { parseTokens, renderTokens, type PyExpr } from "./expression.js";
import { tokenizePython, type LogicalLine, type PyToken } from "./tokenize.js";
import { pyLstrip, pyRstrip, pyStrip, pyStripChars } from "../py-str.js";

// A reader for the small part of Python that τ²-bench's prompt and toolkit modules use: module-level
// string constants and type aliases, classes with their constants, and methods with their decorators,
// signatures, docstrings and nested functions. Nothing is executed: string literals are evaluated the
// way Python's compiler does (prefixes, escapes, implicit concatenation, `.strip()`), everything else
// is kept as source text (annotations, defaults, decorators) for the callers to interpret.

/** A module- or class-level assignment: a string constant, or any other value kept as source text. */
export type PyValue = { kind: "string"; value: string } | { kind: "expression"; text: string };

export interface PyParameter {
  name: string;
  annotation: string | undefined;
  default: string | undefined;
}

export interface PyFunction {
  name: string;
  line: number;
  decorators: string[];
  /** Parameters in signature order, without `self`/`cls`, `*args`, `**kwargs` and the `*` / `/` markers. */
  parameters: PyParameter[];
  returns: string | undefined;
  /** The evaluated docstring (Python's raw `__doc__`), if the body starts with a string literal. */
  docstring: string | undefined;
  /** Functions defined inside the body, in source order. */
  nested: PyFunction[];
}

/**
 * A class-level assignment, in source order: `name = value`, `name: annotation = value` or a bare
 * `name: annotation` (a pydantic field without default). Annotation and value are source text.
 */
export interface PyClassMember {
  name: string;
  line: number;
  annotation: string | undefined;
  value: string | undefined;
}

export interface PyClass {
  name: string;
  line: number;
  bases: string | undefined;
  decorators: string[];
  docstring: string | undefined;
  constants: ReadonlyMap<string, PyValue>;
  /** Every class-level assignment and annotated name, in source order (fields, enum members, config). */
  members: PyClassMember[];
  methods: PyFunction[];
}

export interface PyModule {
  file: string;
  docstring: string | undefined;
  assignments: ReadonlyMap<string, PyValue>;
  classes: PyClass[];
  functions: PyFunction[];
}

interface Statement {
  line: LogicalLine;
  body: Statement[];
}

function isOpToken(token: PyToken | undefined, text: string): boolean {
  return token?.type === "op" && token.text === text;
}

function buildStatements(lines: LogicalLine[], file: string): Statement[] {
  const root: Statement[] = [];
  const stack: Array<{ indent: number; body: Statement[] }> = [{ indent: 0, body: root }];
  for (const line of lines) {
    let top = stack[stack.length - 1]!;
    if (line.indent > top.indent) {
      const owner = top.body[top.body.length - 1];
      const tokens = owner?.line.tokens;
      if (!owner || !isOpToken(tokens![tokens!.length - 1], ":"))
        throw new PythonSyntaxError("unexpected indent", file, line.line);
      stack.push({ indent: line.indent, body: owner.body });
      top = stack[stack.length - 1]!;
    } else {
      while (line.indent < top.indent) {
        stack.pop();
        top = stack[stack.length - 1]!;
      }
      if (line.indent !== top.indent)
        throw new PythonSyntaxError("unindent does not match any outer indentation level", file, line.line);
    }
    top.body.push({ line, body: [] });
  }
  const check = (statements: Statement[]) => {
    for (const statement of statements) {
      const tokens = statement.line.tokens;
      if (isOpToken(tokens[tokens.length - 1], ":") && statement.body.length === 0)
        throw new PythonSyntaxError("expected an indented block", file, statement.line.line);
      check(statement.body);
    }
  };
  check(root);
  return root;
}

/** Split tokens on top-level occurrences of an operator. */
function splitTopLevel(tokens: readonly PyToken[], separator: string): PyToken[][] {
  const parts: PyToken[][] = [[]];
  let depth = 0;
  for (const token of tokens) {
    if (token.type === "op") {
      if ("([{".includes(token.text)) depth++;
      else if (")]}".includes(token.text)) depth--;
      else if (depth === 0 && token.text === separator) {
        parts.push([]);
        continue;
      }
    }
    parts[parts.length - 1]!.push(token);
  }
  return parts;
}

function findClosing(tokens: readonly PyToken[], openIndex: number): number {
  let depth = 0;
  for (let i = openIndex; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.type !== "op") continue;
    if ("([{".includes(token.text)) depth++;
    else if (")]}".includes(token.text) && --depth === 0) return i;
  }
  return -1;
}

/** The value of a string-literal expression (with `.strip()`-family calls), or undefined. */
function evaluateStringExpr(expr: PyExpr): string | undefined {
  if (expr.kind === "string") return expr.bytes ? undefined : expr.value;
  if (expr.kind === "call" && expr.func.kind === "attribute" && expr.keywords.length === 0) {
    const target = evaluateStringExpr(expr.func.value);
    if (target === undefined) return undefined;
    const method = expr.func.attr;
    if (expr.args.length === 0) {
      if (method === "strip") return pyStrip(target);
      if (method === "lstrip") return pyLstrip(target);
      if (method === "rstrip") return pyRstrip(target);
    }
    if (expr.args.length === 1 && ["strip", "lstrip", "rstrip"].includes(method)) {
      const chars = evaluateStringExpr(expr.args[0]!);
      if (chars === undefined) return undefined;
      if (method === "strip") return pyStripChars(target, chars);
      if (method === "lstrip") return pyStripChars(target + "\0", chars).slice(0, -1);
      return pyStripChars("\0" + target, chars).slice(1);
    }
  }
  return undefined;
}

function valueOf(tokens: readonly PyToken[], file: string): PyValue {
  try {
    const value = evaluateStringExpr(parseTokens(tokens, file));
    if (value !== undefined) return { kind: "string", value };
  } catch (error) {
    if (!(error instanceof PythonSyntaxError)) throw error;
  }
  return { kind: "expression", text: renderTokens(tokens) };
}

/** `NAME = value`, `NAME: annotation = value` or `A = B = value`: the target names and the value. */
function readAssignment(tokens: readonly PyToken[]): { targets: string[]; value: PyToken[] } | undefined {
  const parts = splitTopLevel(tokens, "=");
  if (parts.length < 2) return undefined;
  const value = parts[parts.length - 1]!;
  const targets: string[] = [];
  for (const part of parts.slice(0, -1)) {
    const first = part[0];
    if (first?.type !== "name") return undefined;
    if (part.length === 1 || (parts.length === 2 && isOpToken(part[1], ":"))) targets.push(first.text);
    else return undefined;
  }
  return value.length > 0 ? { targets, value } : undefined;
}

/** The docstring: the body's first statement if it is a plain string literal (not bytes, not f-string). */
function docstringOf(first: readonly PyToken[] | undefined): string | undefined {
  if (!first || first.length === 0) return undefined;
  let tokens = first;
  while (isOpToken(tokens[0], "(") && findClosing(tokens, 0) === tokens.length - 1)
    tokens = tokens.slice(1, -1);
  if (tokens.length === 0 || !tokens.every((t) => t.type === "string")) return undefined;
  if (tokens.some((t) => t.string!.bytes || t.string!.fstring)) return undefined;
  return tokens.map((t) => t.string!.value!).join("");
}

function readParameters(tokens: readonly PyToken[], dropFirst: boolean, file: string, line: number) {
  const parameters: PyParameter[] = [];
  let first = true;
  for (const part of splitTopLevel(tokens, ",")) {
    if (part.length === 0) continue;
    const head = part[0]!;
    if (head.type === "op") {
      if (head.text === "*" || head.text === "**" || head.text === "/") {
        first = false;
        continue;
      }
      throw new PythonSyntaxError(`invalid parameter '${renderTokens(part)}'`, file, line);
    }
    if (head.type !== "name")
      throw new PythonSyntaxError(`invalid parameter '${renderTokens(part)}'`, file, line);
    const [left, ...rest] = splitTopLevel(part, "=");
    const defaultText = rest.length > 0 ? renderTokens(part.slice(left!.length + 1)) : undefined;
    let annotation: string | undefined;
    if (left!.length > 1) {
      if (!isOpToken(left![1], ":") || left!.length < 3)
        throw new PythonSyntaxError(`invalid parameter '${renderTokens(part)}'`, file, line);
      annotation = renderTokens(left!.slice(2));
    }
    const skip = first && dropFirst;
    first = false;
    if (!skip) parameters.push({ name: head.text, annotation, default: defaultText });
  }
  return parameters;
}

function readFunction(
  statement: Statement,
  decorators: string[],
  isMethod: boolean,
  file: string,
): PyFunction {
  const { tokens, line } = statement.line;
  let index = tokens[0]?.text === "async" ? 1 : 0;
  const nameToken = tokens[index + 1];
  if (tokens[index]?.text !== "def" || nameToken?.type !== "name" || !isOpToken(tokens[index + 2], "("))
    throw new PythonSyntaxError("invalid function definition", file, line);
  const open = index + 2;
  const close = findClosing(tokens, open);
  if (close < 0) throw new PythonSyntaxError("unclosed parameter list", file, line);
  index = close + 1;
  let returns: string | undefined;
  let colon = index;
  if (isOpToken(tokens[index], "->")) {
    const afterArrow = tokens.slice(index + 1);
    const [annotation] = splitTopLevel(afterArrow, ":");
    if (annotation!.length === afterArrow.length) throw new PythonSyntaxError("expected ':'", file, line);
    returns = renderTokens(annotation!);
    colon = index + 1 + annotation!.length;
  }
  if (!isOpToken(tokens[colon], ":")) throw new PythonSyntaxError("expected ':'", file, line);
  const inline = tokens.slice(colon + 1);
  const isStatic = decorators.includes("staticmethod");
  const parameters = readParameters(tokens.slice(open + 1, close), isMethod && !isStatic, file, line);
  const docstring = docstringOf(
    inline.length > 0 ? splitTopLevel(inline, ";")[0] : statement.body[0]?.line.tokens,
  );
  return {
    name: nameToken.text,
    line,
    decorators,
    parameters,
    returns,
    docstring,
    nested: readNestedFunctions(statement.body, file),
  };
}

function isDef(tokens: readonly PyToken[]): boolean {
  return tokens[0]?.text === "def" || (tokens[0]?.text === "async" && tokens[1]?.text === "def");
}

/** Functions defined anywhere in a body (inside `if`/`for`/`with`… too), not inside nested classes. */
function readNestedFunctions(body: Statement[], file: string): PyFunction[] {
  const found: PyFunction[] = [];
  let decorators: string[] = [];
  for (const statement of body) {
    const tokens = statement.line.tokens;
    if (isOpToken(tokens[0], "@")) {
      decorators.push(renderTokens(tokens.slice(1)));
      continue;
    }
    if (isDef(tokens)) found.push(readFunction(statement, decorators, false, file));
    else if (tokens[0]?.text !== "class") found.push(...readNestedFunctions(statement.body, file));
    decorators = [];
  }
  return found;
}

function readClass(statement: Statement, decorators: string[], file: string): PyClass {
  const { tokens, line } = statement.line;
  const nameToken = tokens[1];
  if (nameToken?.type !== "name") throw new PythonSyntaxError("invalid class definition", file, line);
  let bases: string | undefined;
  let colon = 2;
  if (isOpToken(tokens[2], "(")) {
    const close = findClosing(tokens, 2);
    if (close < 0) throw new PythonSyntaxError("unclosed base list", file, line);
    bases = renderTokens(tokens.slice(2, close + 1)).slice(1, -1); // keyword spacing as in a call
    colon = close + 1;
  }
  if (!isOpToken(tokens[colon], ":")) throw new PythonSyntaxError("expected ':'", file, line);
  const inline = tokens.slice(colon + 1);
  const constants = new Map<string, PyValue>();
  const members: PyClassMember[] = [];
  const methods: PyFunction[] = [];
  let pending: string[] = [];
  for (const member of statement.body) {
    const memberTokens = member.line.tokens;
    if (isOpToken(memberTokens[0], "@")) {
      pending.push(renderTokens(memberTokens.slice(1)));
      continue;
    }
    if (isDef(memberTokens)) {
      methods.push(readFunction(member, pending, true, file));
    } else {
      const assignment = readAssignment(memberTokens);
      if (assignment) {
        const value = valueOf(assignment.value, file);
        for (const target of assignment.targets) constants.set(target, value);
      }
      const classMember = readClassMember(memberTokens, member.line.line);
      if (classMember) members.push(...classMember);
    }
    pending = [];
  }
  return {
    name: nameToken.text,
    line,
    bases,
    decorators,
    docstring: docstringOf(inline.length > 0 ? inline : statement.body[0]?.line.tokens),
    constants,
    members,
    methods,
  };
}

const KEYWORDS = new Set(
  (
    "False None True and as assert async await break class continue def del elif else except finally for " +
    "from global if import in is lambda nonlocal not or pass raise return try while with yield"
  ).split(" "),
);

/** `a = b = value`, `name: annotation = value` and `name: annotation` as class members. */
function readClassMember(tokens: readonly PyToken[], line: number): PyClassMember[] | undefined {
  const head = tokens[0];
  if (head?.type !== "name" || KEYWORDS.has(head.text)) return undefined;
  if (isOpToken(tokens[1], ":")) {
    const [left, ...rest] = splitTopLevel(tokens, "=");
    if (rest.length > 1 || left!.length < 3) return undefined;
    const annotation = renderTokens(left!.slice(2));
    const value = rest.length === 1 ? tokens.slice(left!.length + 1) : undefined;
    if (value !== undefined && value.length === 0) return undefined;
    return [{ name: head.text, line, annotation, value: value && renderTokens(value) }];
  }
  const assignment = readAssignment(tokens);
  if (!assignment) return undefined;
  const value = renderTokens(assignment.value);
  return assignment.targets.map((name) => ({ name, line, annotation: undefined, value }));
}

/** Read a Python module's constants, classes and functions (see the file comment). */
export function readPythonModule(source: string, file: string): PyModule {
  const statements = buildStatements(tokenizePython(source, file), file);
  const assignments = new Map<string, PyValue>();
  const classes: PyClass[] = [];
  const functions: PyFunction[] = [];
  let pending: string[] = [];
  for (const statement of statements) {
    const tokens = statement.line.tokens;
    if (isOpToken(tokens[0], "@")) {
      pending.push(renderTokens(tokens.slice(1)));
      continue;
    }
    if (tokens[0]?.text === "class" && tokens[1]?.type === "name") {
      classes.push(readClass(statement, pending, file));
    } else if (isDef(tokens)) {
      functions.push(readFunction(statement, pending, false, file));
    } else {
      const assignment = readAssignment(tokens);
      if (assignment) {
        const value = valueOf(assignment.value, file);
        for (const target of assignment.targets) assignments.set(target, value);
      }
    }
    pending = [];
  }
  return { file, docstring: docstringOf(statements[0]?.line.tokens), assignments, classes, functions };
}
