import { z } from "zod";
import { defineTool } from "../../src/env/tool.js";
import { ToolError } from "../../src/env/world.js";
import {
  BookSchema,
  HoldSchema,
  LoanSchema,
  MemberSchema,
  PaymentSchema,
  TODAY,
  type LibraryDb,
} from "./db-schema.js";
import { addDays, borrowingBlockers, getLoan, getMember, renewalBlockers } from "./rules.js";

const memberId = z.string().describe("The member's id, such as 'M1001'.");

export const findMemberByEmail = defineTool({
  name: "find_member_by_email",
  description: "Look up a member's id from the email address on their account.",
  kind: "read",
  parameters: z.object({ email: z.string().describe("The member's email address.") }),
  run(db: LibraryDb, { email }) {
    const wanted = email.trim().toLowerCase();
    for (const member of db.members.values())
      if (member.email.toLowerCase() === wanted) return member.member_id;
    throw new ToolError(`No member with email ${email}`, "KeyError");
  },
});

export const getMemberDetails = defineTool({
  name: "get_member_details",
  description: "Show a member's account: card, membership expiry, fines, loans and holds.",
  kind: "read",
  parameters: z.object({ member_id: memberId }),
  returns: MemberSchema,
  run(db: LibraryDb, { member_id }) {
    return getMember(db, member_id);
  },
});

export const BorrowingStatusSchema = z.object({
  member_id: z.string(),
  can_borrow: z.boolean(),
  reasons: z.array(z.string()),
});

export const checkBorrowingStatus = defineTool({
  name: "check_borrowing_status",
  description: "Tell whether a member may borrow right now and, if not, every reason why.",
  kind: "read",
  parameters: z.object({ member_id: memberId }),
  returns: BorrowingStatusSchema,
  run(db: LibraryDb, { member_id }) {
    const reasons = borrowingBlockers(db, getMember(db, member_id));
    return { member_id, can_borrow: reasons.length === 0, reasons };
  },
});

export const getLoanDetails = defineTool({
  name: "get_loan_details",
  description: "Show one loan: the book, the due date, how often it was renewed.",
  kind: "read",
  parameters: z.object({ loan_id: z.string().describe("The loan's id, such as 'L1001'.") }),
  returns: LoanSchema,
  run(db: LibraryDb, { loan_id }) {
    return getLoan(db, loan_id);
  },
});

export const searchCatalog = defineTool({
  name: "search_catalog",
  description: "Find books whose title or author contains the query (case does not matter).",
  kind: "read",
  parameters: z.object({ query: z.string().describe("Part of a title or an author's name.") }),
  returns: z.array(BookSchema),
  run(db: LibraryDb, { query }) {
    const wanted = query.trim().toLowerCase();
    return [...db.books.values()].filter(
      (b) => b.title.toLowerCase().includes(wanted) || b.author.toLowerCase().includes(wanted),
    );
  },
});

export const renewLoan = defineTool({
  name: "renew_loan",
  description: "Renew a loan for 14 days from its due date (or from today, if it is overdue).",
  kind: "write",
  parameters: z.object({ loan_id: z.string().describe("The loan to renew.") }),
  returns: LoanSchema,
  run(db: LibraryDb, { loan_id }) {
    const loan = getLoan(db, loan_id);
    const reasons = renewalBlockers(db, loan);
    if (reasons.length > 0) throw new ToolError(`Loan ${loan_id} cannot be renewed: ${reasons.join("; ")}`);
    loan.due_date = addDays(loan.due_date < TODAY ? TODAY : loan.due_date, 14);
    loan.renewals += 1;
    return loan;
  },
});

export const payFines = defineTool({
  name: "pay_fines",
  description: "Take a card payment towards a member's fines. The amount may not exceed what is due.",
  kind: "write",
  parameters: z.object({
    member_id: memberId,
    amount: z.number().describe("Amount to pay, in euros, such as 4.5."),
  }),
  returns: PaymentSchema,
  run(db: LibraryDb, { member_id, amount }) {
    const member = getMember(db, member_id);
    if (member.fines_in_collections)
      throw new ToolError(
        `The fines of member ${member_id} are with the collection agency; the library cannot take payment`,
      );
    if (!(amount > 0)) throw new ToolError("The amount must be positive");
    if (amount > member.fines_due)
      throw new ToolError(`The amount ${amount} is more than the fines due (${member.fines_due})`);
    // Whole cents, so that 14.5 - 4.5 stays 10.0 and not 9.999…
    member.fines_due = Math.round((member.fines_due - amount) * 100) / 100;
    const payment = { payment_id: `P${1001 + db.payments.size}`, member_id, amount };
    db.payments.set(payment.payment_id, payment);
    return payment;
  },
});

export const renewMembership = defineTool({
  name: "renew_membership",
  description:
    "Extend a membership by one year from today. Possible once it expires within 30 days, or has expired.",
  kind: "write",
  parameters: z.object({ member_id: memberId }),
  returns: MemberSchema,
  run(db: LibraryDb, { member_id }) {
    const member = getMember(db, member_id);
    if (member.membership_expires > addDays(TODAY, 30))
      throw new ToolError(
        `The membership of ${member_id} runs until ${member.membership_expires}; renew it from 30 days before`,
      );
    member.membership_expires = addDays(TODAY, 365);
    return member;
  },
});

export const replaceCard = defineTool({
  name: "replace_card",
  description: "Issue a new card number for a card reported lost; the lost number stops working.",
  kind: "write",
  parameters: z.object({ member_id: memberId }),
  returns: MemberSchema,
  run(db: LibraryDb, { member_id }) {
    const member = getMember(db, member_id);
    if (member.card_status === "blocked")
      throw new ToolError(`The card of ${member_id} is blocked; only library staff can review it`);
    if (member.card_status !== "lost") throw new ToolError(`The card of ${member_id} is not reported lost`);
    member.card_number = String(BigInt(member.card_number) + 1n);
    member.card_status = "active";
    return member;
  },
});

export const placeHold = defineTool({
  name: "place_hold",
  description: "Put a member in the waiting line for a book.",
  kind: "write",
  parameters: z.object({
    member_id: memberId,
    book_id: z.string().describe("The book's id, such as 'B101'."),
  }),
  returns: HoldSchema,
  run(db: LibraryDb, { member_id, book_id }) {
    const member = getMember(db, member_id);
    const book = db.books.get(book_id);
    if (!book) throw new ToolError(`Book ${book_id} not found`, "KeyError");
    const reasons = borrowingBlockers(db, member, { forRenewal: true });
    if (reasons.length > 0)
      throw new ToolError(`Member ${member_id} cannot place holds: ${reasons.join("; ")}`);
    if (book.holds_queue.includes(member_id))
      throw new ToolError(`Member ${member_id} is already waiting for ${book_id}`);
    const hold = { hold_id: `H${1001 + db.holds.size}`, member_id, book_id, status: "waiting" as const };
    db.holds.set(hold.hold_id, hold);
    book.holds_queue.push(member_id);
    member.hold_ids.push(hold.hold_id);
    return hold;
  },
});

export const cancelHold = defineTool({
  name: "cancel_hold",
  description: "Take a member out of the waiting line for a book.",
  kind: "write",
  parameters: z.object({ hold_id: z.string().describe("The hold's id, such as 'H1001'.") }),
  returns: HoldSchema,
  run(db: LibraryDb, { hold_id }) {
    const hold = db.holds.get(hold_id);
    if (!hold) throw new ToolError(`Hold ${hold_id} not found`, "KeyError");
    if (hold.status !== "waiting") throw new ToolError(`Hold ${hold_id} is already ${hold.status}`);
    hold.status = "cancelled";
    const book = db.books.get(hold.book_id);
    if (book) book.holds_queue = book.holds_queue.filter((id) => id !== hold.member_id);
    return hold;
  },
});

export const transferToHumanAgents = defineTool({
  name: "transfer_to_human_agents",
  description:
    "Hand the member over to library staff with a summary. Only when the member asks for staff, or when the policy and tools cannot solve the request.",
  kind: "generic",
  parameters: z.object({ summary: z.string().describe("What the member needs and what was tried.") }),
  run() {
    return "Transfer successful";
  },
});

export const libraryTools = [
  findMemberByEmail,
  getMemberDetails,
  checkBorrowingStatus,
  getLoanDetails,
  searchCatalog,
  renewLoan,
  payFines,
  renewMembership,
  replaceCard,
  placeHold,
  cancelHold,
  transferToHumanAgents,
];
