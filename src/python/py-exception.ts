/**
 * A Python exception: its text and its class name (`TypeError`, `ZeroDivisionError`…). The
 * Python-exact helpers raise it where CPython raises, so a tool that uses them fails with the
 * reference's exception type and text. The env's `ToolError` (what a domain's tools throw on purpose)
 * is one; the world reports any `PyException` with its `pyType`, other errors as `ValueError`.
 */
export class PyException extends Error {
  constructor(
    message: string,
    readonly pyType: string = "ValueError",
  ) {
    super(message);
    this.name = "PyException";
  }
}
