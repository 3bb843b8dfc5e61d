import { createHash } from "node:crypto";
import { PyException } from "../../python/py-exception.js";
import { fixed, jsonDumpsSorted, str, typeName } from "../../python/py-dynamic.js";

// The reference makes every id it creates deterministic: the first bytes of sha256 of a seed built
// from the record's fields, as hex (some with a prefix), so equal actions give equal databases.

/** `length` hex characters of sha256(seed) (UTF-8). */
export function deterministicId(seed: string, length = 16): string {
  return createHash("sha256")
    .update(seed, "utf8")
    .digest("hex")
    .slice(0, 2 * Math.floor(length / 2));
}

/** Credit card transaction: `txn_` + 12 hex of "transaction:user:card:merchant:amount(.2f):category". */
export function transactionId(
  userId: unknown,
  cardType: unknown,
  merchant: unknown,
  amount: unknown,
  category: unknown,
): string {
  const seed = [
    "transaction",
    str(userId),
    str(cardType),
    str(merchant),
    fixed(amount, 2),
    str(category),
  ].join(":");
  return `txn_${deterministicId(seed, 12)}`;
}

export function referralId(referrerId: unknown, accountType: unknown): string {
  return deterministicId(["referral", str(referrerId), str(accountType)].join(":"));
}

export function applicationId(
  cardType: unknown,
  customerName: unknown,
  annualIncome: unknown,
  subscription: unknown,
): string {
  return deterministicId(
    `credit_card:${str(cardType)}:${str(customerName)}:${str(annualIncome)}:${str(subscription)}`,
  );
}

/** Verification record: `{user_id}_{time with spaces → _, ':' and '-' removed}`. */
export function verificationId(userId: unknown, timeVerified: unknown): string {
  const time = strReplace(strReplace(strReplace(timeVerified, " ", "_"), ":", ""), "-", "");
  return `${str(userId)}_${time}`;
}

function strReplace(value: unknown, from: string, to: string): string {
  if (typeof value === "string") return value.replaceAll(from, to);
  throw new PyException(`'${typeName(value)}' object has no attribute 'replace'`, "AttributeError");
}

export function userDiscoverableToolId(name: string): string {
  return deterministicId(`user_discoverable_tool:${name}`);
}

export function userDiscoverableToolCallId(name: string, args: unknown): string {
  return deterministicId(`user_discoverable_tool_call:${name}:${jsonDumpsSorted(args)}`);
}

export function agentDiscoverableToolId(name: string): string {
  return deterministicId(`agent_discoverable_tool:${name}`);
}

export function disputeId(userId: unknown, transactionId: unknown): string {
  return `dsp_${deterministicId(`dispute:${str(userId)}:${str(transactionId)}`, 12)}`;
}

export function referralLinkId(userId: unknown, cardName: unknown): string {
  return deterministicId(`referral_link:${str(userId)}:${str(cardName)}`);
}

export function creditCardOrderId(accountId: unknown, userId: unknown, reason: unknown): string {
  return `ccord_${deterministicId(`credit_card_order:${str(accountId)}:${str(userId)}:${str(reason)}`, 12)}`;
}

export function closureReasonId(accountId: unknown, userId: unknown): string {
  return `clsr_${deterministicId(`closure_reason:${str(accountId)}:${str(userId)}`, 12)}`;
}

export function accountFlagId(accountId: unknown, flagType: unknown, expiration: unknown): string {
  return `ccflag_${deterministicId(`account_flag:${str(accountId)}:${str(flagType)}:${str(expiration)}`, 12)}`;
}

export function creditLimitRequestId(accountId: unknown, userId: unknown, amount: unknown): string {
  return `cli_${deterministicId(`cli_request:${str(accountId)}:${str(userId)}:${fixed(amount, 2)}`, 12)}`;
}

export function debitCardOrderId(accountId: unknown, userId: unknown, delivery: unknown): string {
  return `dcord_${deterministicId(`debit_card_order:${str(accountId)}:${str(userId)}:${str(delivery)}`, 12)}`;
}

export function debitCardId(accountId: unknown, userId: unknown, issueDate: unknown): string {
  return `dbc_${deterministicId(`debit_card:${str(accountId)}:${str(userId)}:${str(issueDate)}`, 12)}`;
}
