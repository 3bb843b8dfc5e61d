/**
 * A Python `float` held in free-form data — records without a schema that tools change in place, such as
 * banking_knowledge's tables of dicts. There no schema can say which numbers are floats, and float marks
 * (py-float.ts) cannot follow the data: a tool that changes one field of a record through an immer draft
 * gets a copy of the record, and the copy would lose the marks of its other fields. So a float there is
 * this value object instead, which every copy carries along: `100.0` stays `PyFloat(100)`, while a JS
 * `number` in such data is always a Python `int`. The Python-exact writers (`toPyJson`, `formatPyJson`,
 * `pyRepr`) print it as CPython prints a float; `JSON.stringify` writes its number.
 */
export class PyFloat {
  readonly value: number;

  constructor(value: number) {
    this.value = value;
    Object.freeze(this);
  }

  toJSON(): number {
    return this.value;
  }
}
