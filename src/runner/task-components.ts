import { existsSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../core/errors.js";
import type { AnyDomain } from "../env/domain.js";
import { resolveDataDir } from "../formats/tau2/data-dir.js";
import type { TaskComponents } from "../generator/components-schema.js";
import { readTaskComponents } from "../generator/read-task-components.js";

/** Name of the components file inside a domain's data folder. */
export const COMPONENTS_FILE = "task_components.json";

/** Where a domain's task components are read from (`passk tasks generate`'s `--components` / `--domain`). */
export interface TaskComponentsSource {
  /** A components file of any domain. */
  components?: string | undefined;
  /** A domain (its name, or the module path it is registered under): `<data dir>/<its folder>/task_components.json`. */
  domain?: string | undefined;
  /** The τ² data directory: by default `PASSK_DATA_DIR` or where `passk data pull` puts it. */
  dataDir?: string | undefined;
}

/** Where the data directory is (`PASSK_DATA_DIR`) and the registered domains, whose folders and names count. */
interface ComponentsLookup {
  env?: NodeJS.ProcessEnv;
  domains: ReadonlyMap<string, AnyDomain>;
}

/**
 * The components file a source names, read and checked; with a domain, the file must compose that
 * domain's tasks. The domain need not be registered: generation reads only the components file.
 */
export function readDomainTaskComponents(
  source: TaskComponentsSource,
  options: ComponentsLookup,
): { file: string; components: TaskComponents } {
  const file = componentsFile(source, options);
  const components = readTaskComponents(file);
  if (source.domain) {
    // A module path (`--domain ./x/index.ts`) is registered under the path; its tasks carry the domain's name.
    const name = options.domains.get(source.domain)?.name ?? source.domain;
    const other = components.managers.find((m) => m.domain !== name);
    if (other)
      throw new ConfigError(
        `${file} composes tasks of domain "${other.domain}" (manager ${other.name}), not --domain ${source.domain}`,
      );
  }
  return { file, components };
}

/** `components`, else `<data dir>/<domain folder>/task_components.json`. */
function componentsFile(source: TaskComponentsSource, options: ComponentsLookup): string {
  if (source.components) {
    const file = path.resolve(source.components);
    if (!existsSync(file)) throw new ConfigError(`--components ${source.components}: no such file (${file})`);
    return file;
  }
  if (!source.domain)
    throw new ConfigError(
      "give --domain NAME (reads <data dir>/NAME/task_components.json) or --components FILE",
    );
  const folder = options.domains.get(source.domain)?.data.folder ?? source.domain;
  const file = path.join(resolveDataDir(source.dataDir, options.env), folder, COMPONENTS_FILE);
  if (!existsSync(file))
    throw new ConfigError(
      `domain ${source.domain} has no ${COMPONENTS_FILE} at ${file}; write one (see the README, "Add your own domain") or pass --components FILE`,
    );
  return file;
}
