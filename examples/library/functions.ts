import { z } from "zod";
import type { EnvFunction } from "../../src/env/tool.js";
import { TODAY, type LibraryDb } from "./db-schema.js";
import { addDays, borrowingBlockers, getLoan, getMember, renewalBlockers } from "./rules.js";

/** An env function whose arguments are checked by a zod schema (task files are outside input). */
function envFunction<S extends z.ZodObject>(
  args: S,
  run: (db: LibraryDb, parsed: z.output<S>) => unknown,
): EnvFunction<LibraryDb> {
  return (db, raw) => run(db, args.parse(raw));
}

const ByMember = z.object({ member_id: z.string() });

/**
 * Functions that tasks call by name: initialization helpers that put the world into a broken state,
 * and assertions that say whether it is fixed. The agent never sees them.
 */
export const libraryFunctions: Record<string, EnvFunction<LibraryDb>> = {
  set_fines: envFunction(
    z.object({ member_id: z.string(), amount: z.number() }),
    (db, { member_id, amount }) => {
      getMember(db, member_id).fines_due = amount;
    },
  ),
  send_fines_to_collections: envFunction(ByMember, (db, { member_id }) => {
    getMember(db, member_id).fines_in_collections = true;
  }),
  expire_membership: envFunction(ByMember, (db, { member_id }) => {
    getMember(db, member_id).membership_expires = addDays(TODAY, -1);
  }),
  report_card_lost: envFunction(ByMember, (db, { member_id }) => {
    getMember(db, member_id).card_status = "lost";
  }),
  block_card: envFunction(ByMember, (db, { member_id }) => {
    getMember(db, member_id).card_status = "blocked";
  }),
  set_loan_renewals: envFunction(
    z.object({ loan_id: z.string(), renewals: z.int() }),
    (db, { loan_id, renewals }) => {
      getLoan(db, loan_id).renewals = renewals;
    },
  ),

  assert_can_borrow: envFunction(
    ByMember,
    (db, { member_id }) => borrowingBlockers(db, getMember(db, member_id)).length === 0,
  ),
  assert_can_renew: envFunction(
    z.object({ loan_id: z.string() }),
    (db, { loan_id }) => renewalBlockers(db, getLoan(db, loan_id)).length === 0,
  ),
  assert_fines_due: envFunction(
    z.object({ member_id: z.string(), expected_amount: z.number() }),
    (db, { member_id, expected_amount }) => getMember(db, member_id).fines_due === expected_amount,
  ),
  assert_card_status: envFunction(
    z.object({ member_id: z.string(), expected_status: z.string() }),
    (db, { member_id, expected_status }) => getMember(db, member_id).card_status === expected_status,
  ),
};
