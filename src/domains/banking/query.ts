import { PyException } from "../../python/py-exception.js";
import { pyJsonLoads, PyJsonDecodeError } from "../../python/py-json-loads.js";
import { pyRepr } from "../../python/py-values.js";
import type { BankingDb, PyRecord, TableName } from "./db.js";
import { compare, dictEntries, equals, str, typeName, type Comparison } from "../../python/py-dynamic.js";

// τ²'s `query_database_tool`: the text most banking read tools answer with. Constraints are a JSON
// object of `field` or `field__op` → value; records are listed with every field printed by `str()`.

/** The tables the query helper knows, in its order (it names them when asked for another). */
const QUERYABLE: readonly TableName[] = [
  "users",
  "accounts",
  "referrals",
  "credit_card_applications",
  "user_discoverable_tools",
  "user_discoverable_tool_calls",
  "agent_discoverable_tools",
  "task_config",
  "verification_history",
  "credit_card_transaction_history",
  "cash_back_disputes",
  "bank_account_transaction_history",
  "credit_card_accounts",
  "human_transfer_requests",
  "transaction_disputes",
  "credit_card_orders",
  "credit_card_closure_reasons",
  "credit_card_account_flags",
  "debit_cards",
  "debit_card_orders",
  "debit_card_disputes",
  "credit_limit_increase_requests",
  "payment_history",
];

/** The records matching a JSON constraint text, rendered as the reference renders them. */
export function queryDatabaseTool(db: BankingDb, databaseName: unknown, constraints: unknown = "{}"): string {
  try {
    if (typeof databaseName !== "string" || !(QUERYABLE as readonly string[]).includes(databaseName))
      return `Error: Database '${str(databaseName)}' not found. Available: ${pyRepr([...QUERYABLE])}`;
    const table = databaseName as TableName;
    let parsed: unknown = {};
    if (constraints !== "" && constraints !== null && constraints !== undefined && constraints !== false) {
      if (typeof constraints !== "string")
        return `Error: Invalid JSON: the JSON object must be str, bytes or bytearray, not ${typeName(constraints)}`;
      try {
        parsed = pyJsonLoads(constraints);
      } catch (error) {
        if (error instanceof PyJsonDecodeError) return `Error: Invalid JSON: ${error.message}`;
        throw error;
      }
    }
    const filters = dictEntries(parsed);
    if (!filters)
      throw new PyException(
        `tau2.domains.banking_knowledge.db_query.query_db() argument after ** must be a mapping, not ${typeName(parsed)}`,
        "TypeError",
      );
    const results = [...db[table].data].filter(([, record]) => matches(record, filters));
    if (results.length === 0) return `No records found in '${table}'.`;
    return renderRecords(table, results);
  } catch (error) {
    return `Error querying database: ${(error as Error).message}`;
  }
}

/** `Found N record(s) in 'T':\n\n1. Record ID: id\n   field: value\n…` (one empty line after each record). */
export function renderRecords(table: string, results: ReadonlyArray<readonly [string, PyRecord]>): string {
  const lines = [`Found ${results.length} record(s) in '${table}':\n`];
  results.forEach(([id, record], index) => {
    lines.push(`${index + 1}. Record ID: ${id}`);
    for (const [field, value] of Object.entries(record)) lines.push(`   ${field}: ${str(value)}`);
    lines.push("");
  });
  return lines.join("\n");
}

/** Whether a record meets every constraint; a comparison Python cannot make counts as no match. */
function matches(record: PyRecord, filters: ReadonlyArray<readonly [string, unknown]>): boolean {
  for (const [key, expected] of filters) {
    const split = key.lastIndexOf("__");
    const field = split >= 0 ? key.slice(0, split) : key;
    const op = split >= 0 ? key.slice(split + 2) : "eq";
    const actual = Object.prototype.hasOwnProperty.call(record, field) ? record[field] : null;
    try {
      if (!compareOp(op, actual, expected)) return false;
    } catch (error) {
      if (error instanceof PyException && (error.pyType === "TypeError" || error.pyType === "ValueError"))
        return false;
      throw error;
    }
  }
  return true;
}

const ORDERING: Record<string, Comparison> = { gt: ">", gte: ">=", lt: "<", lte: "<=" };

function compareOp(op: string, actual: unknown, expected: unknown): boolean {
  if (op in ORDERING) return compare(actual, ORDERING[op]!, expected);
  switch (op) {
    case "ne":
      return !equals(actual, expected);
    case "contains":
      return actual === null ? false : contains(actual, expected);
    case "startswith":
      return actual === null ? false : str(actual).startsWith(str(expected));
    case "endswith":
      return actual === null ? false : str(actual).endsWith(str(expected));
    case "in":
      return contains(expected, actual);
    case "nin":
      return !contains(expected, actual);
    default:
      return equals(actual, expected);
  }
}

/** Python `item in container`. */
function contains(container: unknown, item: unknown): boolean {
  if (typeof container === "string") {
    if (typeof item !== "string")
      throw new PyException(
        `'in <string>' requires string as left operand, not ${typeName(item)}`,
        "TypeError",
      );
    return container.includes(item);
  }
  if (Array.isArray(container)) return container.some((value) => equals(value, item));
  const entries = dictEntries(container);
  if (entries) return entries.some(([key]) => equals(key, item));
  throw new PyException(`argument of type '${typeName(container)}' is not iterable`, "TypeError");
}
