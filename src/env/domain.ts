import type { z } from "zod";
import type { EnvFunctionCall } from "../core/task.js";
import type { Toolkit } from "./tool.js";

/** Reads a text file of the domain's data folder (path relative to that folder). */
export type ReadDataFile = (relativePath: string) => string;

/** Where a domain's data lives inside a data directory (τ²'s `data/tau2/domains/<name>` layout). */
export interface DomainDataFiles {
  /** Folder inside the data directory, e.g. `airline`. */
  readonly folder: string;
  /** Agent database file (`.json` or `.toml`). */
  readonly db: string;
  /** User (device) database file, for dual-control domains. */
  readonly userDb?: string;
  /** Tasks file. */
  readonly tasks: string;
  /** Optional split file: split name → task ids. */
  readonly splits?: string;
  /** The policy given to the agent: a file name, or a function assembling it from several files. */
  readonly policy: string | ((read: ReadDataFile) => string);
  /** The policy for solo mode (agent alone with the ticket), when the domain supports it. */
  readonly soloPolicy?: string | ((read: ReadDataFile) => string);
}

/** The state of one world: the agent-side database and, in dual-control domains, the user's. */
export interface WorldState<ADB = unknown, UDB = unknown> {
  readonly agent: ADB;
  readonly user: UDB | undefined;
}

/**
 * A domain: databases, policy, the agent's toolkit and, for dual-control domains, the user's toolkit
 * (a separate namespace). Built-in domains are defined with this same API.
 */
export interface Domain<ADB = unknown, UDB = unknown> {
  readonly name: string;
  /** One sentence for `passk domains` and the web app. */
  readonly description: string;
  readonly agent: Toolkit<ADB>;
  readonly user?: Toolkit<UDB>;
  readonly data: DomainDataFiles;
  /**
   * Reconciles the two databases after every tool call and every orchestrator step (τ²'s
   * `sync_tools`), e.g. copying a line's status from the carrier's DB to the customer's phone.
   * Works on drafts: mutate `state.agent` / `state.user` in place.
   */
  sync?(state: { agent: ADB; user: UDB | undefined }): void;
  /**
   * Initialization run before a one-off call outside any task (`passk call`), so that a fresh world is
   * a plausible starting point (telecom: a customer with a phone, at home).
   */
  readonly standaloneSetup?: readonly Pick<EnvFunctionCall, "env_type" | "func_name" | "arguments">[];
  /**
   * Where τ²-bench defines this domain's toolkits (the toolkits' `className` inside these files of its
   * repository), so that the τ² protocol can show models the reference's own tool texts. `types` names
   * the domain's schemas by the Python names the reference's tool signatures use (`CabinClass`,
   * `FlightInfo`…). Absent for domains of your own, which run under passk's protocol.
   */
  readonly tau2?: DomainTau2Source;
}

export interface DomainTau2Source {
  readonly agentTools: string;
  readonly userTools?: string;
  readonly types?: ReadonlyMap<string, z.ZodType>;
}

/** A domain of any database types (what registries and the CLI hold). */
export type AnyDomain = Domain<unknown, unknown>;

/**
 * Define a domain.
 *
 * @example
 * export const shop = defineDomain({
 *   name: "shop", description: "A small web shop.",
 *   agent: { db: ShopDbSchema, tools: [getUser, cancelOrder] },
 *   data: { folder: "shop", db: "db.json", tasks: "tasks.json", policy: "policy.md" },
 * });
 */
export function defineDomain<ADB, UDB = never>(domain: Domain<ADB, UDB>): Domain<ADB, UDB> {
  const seen = new Set<string>();
  for (const tool of domain.agent.tools) {
    if (seen.has(tool.name))
      throw new Error(`domain ${domain.name}: agent tool "${tool.name}" is defined twice`);
    seen.add(tool.name);
  }
  return Object.freeze(domain);
}
