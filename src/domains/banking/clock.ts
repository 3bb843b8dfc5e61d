import { PyException } from "../../python/py-exception.js";
import { PyFloat } from "../../python/py-float-value.js";
import { pyRepr } from "../../python/py-values.js";
import { float, toFloat, typeName } from "../../python/py-dynamic.js";

/** The domain's fixed clock: every scenario happens on 11/14/2025 at 03:40 EST. */
export const TODAY = "11/14/2025";
export const CURRENT_TIME = "2025-11-14 03:40:00 EST";
/** `get_now().isoformat()`. */
export const NOW_ISO = "2025-11-14T03:40:00";

const TODAY_DAY = Date.UTC(2025, 10, 14) / 86_400_000;

/**
 * `datetime.strptime(text, "%m/%d/%Y")` as days since the epoch; ValueError for text that does not fit,
 * TypeError for a value that is not a string.
 */
export function parseUsDate(text: unknown): number {
  if (typeof text !== "string")
    throw new PyException(`strptime() argument 1 must be str, not ${typeName(text)}`, "TypeError");
  const match = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
  if (!match)
    throw new PyException(`time data ${pyRepr(text)} does not match format '%m/%d/%Y'`, "ValueError");
  const [month, day, year] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12)
    throw new PyException(`time data ${pyRepr(text)} does not match format '%m/%d/%Y'`, "ValueError");
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > days) throw new PyException("day is out of range for month", "ValueError");
  return Date.UTC(year, month - 1, day) / 86_400_000;
}

/** Whole days from a `MM/DD/YYYY` date to the fixed today (`(now - date).days`). */
export function daysSince(text: unknown): number {
  return TODAY_DAY - parseUsDate(text);
}

/** `datetime.strptime` of a transaction date in either of its formats; undefined when neither fits. */
export function parseTransactionDate(text: string): number | undefined {
  const withTime = /^(.+) (\d{1,2}):(\d{1,2}):(\d{1,2})$/.exec(text);
  try {
    if (withTime) {
      const [h, m, s] = [Number(withTime[2]), Number(withTime[3]), Number(withTime[4])];
      if (h > 23 || m > 59 || s > 61) return undefined;
      return parseUsDate(withTime[1]) * 86_400 + h * 3600 + m * 60 + s;
    }
    return parseUsDate(text) * 86_400;
  } catch {
    return undefined;
  }
}

/** τ² `_parse_balance`: a number, or a string such as `$2,850.00`; anything else is 0.0. */
export function parseBalance(value: unknown): PyFloat {
  if (typeof value === "number" || typeof value === "boolean" || value instanceof PyFloat)
    return float(toFloat(value));
  if (typeof value === "string") return float(toFloat(value.replaceAll("$", "").replaceAll(",", "")));
  return float(0);
}

/** τ² `_get_account_balance`: `current_holdings`, else `balance`, else 0. */
export function accountBalance(account: Record<string, unknown>): number {
  const value =
    "current_holdings" in account ? account.current_holdings : "balance" in account ? account.balance : 0;
  return parseBalance(value).value;
}
