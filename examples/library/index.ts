import { fileURLToPath } from "node:url";
import { defineDomain } from "../../src/env/domain.js";
import { LibraryDbSchema, type LibraryDb } from "./db-schema.js";
import { libraryFunctions } from "./functions.js";
import { libraryTools } from "./tools.js";

/**
 * An example domain: the help desk of a public library. Members borrow, renew and reserve books; the
 * agent can take fine payments, renew memberships, replace lost cards and manage holds. Single-control
 * (only the agent has tools); its data lives in `./data`.
 */
export const libraryDomain = defineDomain<LibraryDb>({
  name: "library",
  description: "A public library's help desk: loans, renewals, holds, fines, memberships and lost cards.",
  agent: { db: LibraryDbSchema, tools: libraryTools, functions: libraryFunctions },
  data: {
    folder: "data",
    db: "db.json",
    tasks: "tasks.json",
    splits: "split_tasks.json",
    policy: "policy.md",
  },
});

/** The data directory to pass as `--data` (the domain's folder `data/` sits inside it). */
export const libraryDataDir = fileURLToPath(new URL(".", import.meta.url));

export default libraryDomain;
