/** A template split into literal text and `{placeholder}` names. */
export type TemplatePart = { text: string } | { placeholder: string };

/**
 * Split a template the way Python's `str.format` reads it: `{name}` is a placeholder, `{{` and `}}` are
 * literal braces; any other brace is an error (returned as a message, so the caller can point at it).
 */
export function parseTemplate(template: string): TemplatePart[] | { error: string } {
  const parts: TemplatePart[] = [];
  let text = "";
  for (let i = 0; i < template.length; i++) {
    const char = template[i]!;
    if ((char === "{" || char === "}") && template[i + 1] === char) {
      text += char;
      i++;
      continue;
    }
    if (char === "}") return { error: `single "}" at character ${i}; write "}}" for a literal brace` };
    if (char !== "{") {
      text += char;
      continue;
    }
    const end = template.indexOf("}", i);
    const name = end < 0 ? "" : template.slice(i + 1, end);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      return {
        error: `"{" at character ${i} does not start a {placeholder}; write "{{" for a literal brace`,
      };
    if (text) parts.push({ text });
    text = "";
    parts.push({ placeholder: name });
    i = end;
  }
  if (text) parts.push({ text });
  return parts;
}

/** Fill a template whose placeholders were checked beforehand. */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  const parts = parseTemplate(template);
  if ("error" in parts) throw new Error(`template ${JSON.stringify(template)}: ${parts.error}`);
  return parts
    .map((part) => {
      if ("text" in part) return part.text;
      const value = values[part.placeholder];
      if (value === undefined) throw new Error(`template placeholder {${part.placeholder}} has no value`);
      return value;
    })
    .join("");
}
