import { z } from "zod";
import { pyDict } from "../../src/env/schema-helpers.js";

/** The library's clock is fixed, so that every task and every replay sees the same "today". */
export const TODAY = "2025-06-02";

/** Fines at or above this amount block borrowing, renewing and holds. */
export const FINE_LIMIT = 10;

/** Loans a member may have out at once. */
export const MAX_LOANS = 5;

/** How many times a loan may be renewed. */
export const MAX_RENEWALS = 2;

export const CardStatusSchema = z.enum(["active", "lost", "blocked"]);

export const MemberSchema = z.object({
  member_id: z.string(),
  name: z.string(),
  email: z.string(),
  card_number: z.string(),
  card_status: CardStatusSchema,
  membership_expires: z.iso.date(),
  // A Python float: 12.0 prints as `12.0` in tool output and in the DB hash.
  fines_due: z.number(),
  fines_in_collections: z.boolean(),
  loan_ids: z.array(z.string()),
  hold_ids: z.array(z.string()),
});
export type Member = z.infer<typeof MemberSchema>;

export const BookSchema = z.object({
  book_id: z.string(),
  title: z.string(),
  author: z.string(),
  year: z.int(),
  copies: z.int(),
  /** Members waiting for the book, first in line first. */
  holds_queue: z.array(z.string()),
});
export type Book = z.infer<typeof BookSchema>;

export const LoanSchema = z.object({
  loan_id: z.string(),
  member_id: z.string(),
  book_id: z.string(),
  due_date: z.iso.date(),
  renewals: z.int(),
  status: z.enum(["out", "returned"]),
});
export type Loan = z.infer<typeof LoanSchema>;

export const HoldSchema = z.object({
  hold_id: z.string(),
  member_id: z.string(),
  book_id: z.string(),
  status: z.enum(["waiting", "cancelled"]),
});
export type Hold = z.infer<typeof HoldSchema>;

export const PaymentSchema = z.object({
  payment_id: z.string(),
  member_id: z.string(),
  amount: z.number(),
});
export type Payment = z.infer<typeof PaymentSchema>;

export const LibraryDbSchema = z.object({
  members: pyDict(MemberSchema),
  books: pyDict(BookSchema),
  loans: pyDict(LoanSchema),
  holds: pyDict(HoldSchema),
  payments: pyDict(PaymentSchema),
});
export type LibraryDb = z.infer<typeof LibraryDbSchema>;
