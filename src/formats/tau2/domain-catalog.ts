import type { AnyDomain, DomainEnv } from "../../env/domain.js";
import { DomainData, type DomainDataOptions } from "./domain-data.js";

/**
 * Where a domain's data comes from and how it is set up. `toolModelKey` names the tool model (its spec),
 * since two loads with different models must not share a world.
 */
export interface DomainLoad extends DomainDataOptions {
  dataDir: string;
  toolModelKey?: string;
}

/**
 * Each domain's data, parsed once per source and settings: the one cache that runs, the server, the
 * gym and the commands load domains through (a large domain — telecom's tasks, banking's knowledge
 * base — is parsed once however many parts of a process use it).
 */
export class DomainCatalog {
  readonly #loaded = new WeakMap<AnyDomain, Map<string, DomainData>>();
  /** Environments by identity: what a domain reads from one (its default config, keys) is not another's. */
  readonly #envIds = new WeakMap<DomainEnv, number>();
  #nextEnvId = 0;

  load(domain: AnyDomain, load: DomainLoad): DomainData {
    const env = load.env ?? process.env;
    let envId = this.#envIds.get(env);
    if (envId === undefined) this.#envIds.set(env, (envId = this.#nextEnvId++));
    const key = JSON.stringify([
      envId,
      load.dataDir,
      load.tasksFile ?? null,
      load.config ?? null,
      load.configKwargs ?? null,
      load.upstream ?? null,
      load.toolModelKey ?? null,
    ]);
    const { dataDir, toolModelKey: _key, ...options } = load;
    // A tool model nobody named cannot be told apart from another, nor can injected embedders and
    // caches: such a load is not shared.
    if (
      (options.toolModel !== undefined && load.toolModelKey === undefined) ||
      options.textEmbedder !== undefined ||
      options.embeddingCache !== undefined
    )
      return new DomainData(domain, dataDir, options);
    let byKey = this.#loaded.get(domain);
    if (!byKey) this.#loaded.set(domain, (byKey = new Map()));
    let data = byKey.get(key);
    if (!data) {
      data = new DomainData(domain, dataDir, options);
      byKey.set(key, data);
    }
    return data;
  }
}
