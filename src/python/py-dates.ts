import { z } from "zod";

/**
 * Python dates and datetimes held as ISO text (the telecom databases have them). TOML files may give
 * them as TOML date values (smol-toml `TomlDate`, a `Date`) or as strings; both become the text
 * pydantic's `str()` would print after parsing, so hashes match the reference (`2025-01-15` for a date,
 * `2025-01-15T10:30:00` for a datetime, which the DB hash prints as `2025-01-15 10:30:00`).
 */
function dateText(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return value;
}

function dateTimeText(value: unknown): unknown {
  const text = value instanceof Date ? value.toISOString() : value;
  if (typeof text !== "string") return text;
  const match =
    /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2})?(?:\.(\d{1,6})\d*)?(Z|[+-]\d{2}:\d{2})?$/i.exec(text);
  if (!match) return text;
  const [, day, minutes, seconds = ":00", fraction, offset] = match;
  // Python prints microseconds only when non-zero, always with six digits; UTC as +00:00.
  const micro = fraction && Number(fraction) !== 0 ? `.${fraction.padEnd(6, "0")}` : "";
  const zone = offset === undefined ? "" : offset.toUpperCase() === "Z" ? "+00:00" : offset;
  return `${day}T${minutes}${seconds}${micro}${zone}`;
}

/** A Python `datetime.date` (`YYYY-MM-DD`). */
export function pyDate() {
  return z.preprocess(dateText, z.iso.date());
}

/** A Python `datetime.datetime` (`YYYY-MM-DDTHH:MM:SS`, optional fraction and offset). */
export function pyDateTime() {
  return z.preprocess(dateTimeText, z.iso.datetime({ local: true, offset: true }));
}
