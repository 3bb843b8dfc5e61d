/**
 * Python's `str.format(**values)` for templates with named fields only: `{name}` is replaced by its
 * value in one pass (a value's own braces are never read as fields), `{{` and `}}` are literal braces.
 * A field with no value is an error naming it, as Python's KeyError is.
 */
export function pyFormat(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (whole, name: string | undefined) => {
    if (whole === "{{") return "{";
    if (whole === "}}") return "}";
    const value = values[name!];
    if (value === undefined)
      throw new Error(
        `the template has a field {${name}} with no value (known: ${Object.keys(values).join(", ")})`,
      );
    return value;
  });
}
