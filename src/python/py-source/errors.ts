/** A problem with a Python source file: which file, and which item (constant, class, function…). */
export class PythonSourceError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly item?: string,
  ) {
    super(message);
    this.name = "PythonSourceError";
  }
}

/** The source is not Python this reader understands (a syntax error, or a construct it does not model). */
export class PythonSyntaxError extends PythonSourceError {
  constructor(
    message: string,
    file: string,
    readonly line: number,
  ) {
    super(`${file}:${line}: ${message}`, file);
    this.name = "PythonSyntaxError";
  }
}
