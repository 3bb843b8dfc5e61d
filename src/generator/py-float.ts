/**
 * A Python float whose value is whole (`2.0`). JavaScript numbers cannot tell `2.0` from `2`, but Python
 * (and therefore every τ² file) prints them differently, so a component file's `2.0` is carried through
 * composition in this wrapper and written back as `2.0`. `JSON.stringify` sees a plain number.
 *
 * Why not the env's float marks (src/env/py-float.ts)? Those stay invisible on plain numbers, so tasks
 * and tool arguments still validate with zod and compute as numbers, but they belong to the object
 * holding the number and are lost when a value moves to another holder. The generator moves values
 * between components and tasks and must write its files byte for byte, so here the float-ness travels
 * with the value itself. Both read files with the same parser (`parseJsonKeepingPyFloats`).
 */
export class PyFloat {
  constructor(readonly value: number) {}

  toJSON(): number {
    return this.value;
  }
}

/** Replace every `PyFloat` by its number: the plain JSON value the rest of passk works with. */
export function withoutPyFloats<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
