import { ToolError } from "../../src/env/world.js";
import {
  FINE_LIMIT,
  MAX_LOANS,
  MAX_RENEWALS,
  TODAY,
  type LibraryDb,
  type Loan,
  type Member,
} from "./db-schema.js";

/** `iso` (YYYY-MM-DD) plus `days`, as YYYY-MM-DD. */
export function addDays(iso: string, days: number): string {
  const date = new Date(`${iso}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

export function getMember(db: LibraryDb, memberId: string): Member {
  const member = db.members.get(memberId);
  if (!member) throw new ToolError(`Member ${memberId} not found`, "KeyError");
  return member;
}

export function getLoan(db: LibraryDb, loanId: string): Loan {
  const loan = db.loans.get(loanId);
  if (!loan) throw new ToolError(`Loan ${loanId} not found`, "KeyError");
  return loan;
}

/** Why a member may not borrow right now (empty: they may). The policy lists the same rules. */
export function borrowingBlockers(
  db: LibraryDb,
  member: Member,
  options: { forRenewal?: boolean } = {},
): string[] {
  const reasons: string[] = [];
  if (member.card_status !== "active") reasons.push(`card is ${member.card_status}`);
  if (member.membership_expires < TODAY) reasons.push(`membership expired on ${member.membership_expires}`);
  if (member.fines_in_collections) reasons.push("fines are with the collection agency");
  else if (member.fines_due >= FINE_LIMIT)
    reasons.push(`fines of ${member.fines_due.toFixed(2)} reach the limit`);
  const out = member.loan_ids.filter((id) => db.loans.get(id)?.status === "out").length;
  if (!options.forRenewal && out >= MAX_LOANS) reasons.push(`already has ${out} loans out`);
  return reasons;
}

/** Why a loan may not be renewed right now (empty: it may). */
export function renewalBlockers(db: LibraryDb, loan: Loan): string[] {
  if (loan.status !== "out") return ["the book was returned"];
  const reasons = borrowingBlockers(db, getMember(db, loan.member_id), { forRenewal: true });
  if (loan.renewals >= MAX_RENEWALS) reasons.push(`already renewed ${loan.renewals} times`);
  const waiting = db.books.get(loan.book_id)?.holds_queue.filter((id) => id !== loan.member_id) ?? [];
  if (waiting.length > 0) reasons.push("another member is waiting for this book");
  return reasons;
}
