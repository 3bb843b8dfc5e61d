// HTTP Range requests on one file (RFC 9110 §14): a single `bytes=` range is served as 206, anything
// this server does not serve partially (several ranges, another unit, a malformed header) as the whole
// file, and a range wholly past the end as 416.

export type ByteRange =
  { kind: "whole" } | { kind: "part"; start: number; end: number } | { kind: "unsatisfiable" };

/** The part of a `size`-byte file a Range header asks for (`end` inclusive). */
export function byteRange(header: string | undefined, size: number): ByteRange {
  if (header === undefined) return { kind: "whole" };
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match || (match[1] === "" && match[2] === "")) return { kind: "whole" };
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0) return { kind: "unsatisfiable" };
    return { kind: "part", start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size) return { kind: "unsatisfiable" };
  if (end < start) return { kind: "whole" };
  return { kind: "part", start, end };
}
