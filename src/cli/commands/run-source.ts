import type { Command } from "commander";
import { resolveStorePath } from "../../store/store-location.js";
import { Store } from "../../store/store.js";
import type { CliContext } from "../context.js";

/** Add `--store PATH` (default `$PASSK_STORE`, else `.passk/passk.db`). */
export function withStoreOption(command: Command): Command {
  return command.option("--store <path>", "run store (default: $PASSK_STORE, else .passk/passk.db)");
}

/** Open the store named by `--store` / `PASSK_STORE`; read-only commands never create one. */
export function openStore(
  context: CliContext,
  flag: string | undefined,
  options: { create: boolean },
): Store {
  return Store.open(resolveStorePath(flag, context.env), { create: options.create });
}

/** Run `fn` with the store open, closing it afterwards (once the promise settles, when `fn` is async). */
export async function withStore<T>(
  context: CliContext,
  flag: string | undefined,
  options: { create: boolean },
  fn: (store: Store) => T | Promise<T>,
): Promise<T> {
  const store = openStore(context, flag, options);
  try {
    return await fn(store);
  } finally {
    store.close();
  }
}
