import path from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError } from "../core/errors.js";
import type { AnyDomain } from "../env/domain.js";

/** A `--domain` value that names a module file (a team's own domain) rather than a built-in name. */
export function isDomainModulePath(value: string): boolean {
  return /[\\/]/.test(value) || /\.(?:[cm]?[jt]s)$/.test(value);
}

function isDomain(value: unknown): value is AnyDomain {
  const v = value as Partial<AnyDomain> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.name === "string" &&
    typeof v.agent === "object" &&
    typeof v.data === "object"
  );
}

/**
 * Load a team's domain from a module (`--domain ./my-domain/index.ts`): its default export, or the one
 * exported value that is a domain. TypeScript modules are loaded through tsx.
 */
export async function importDomainModule(file: string): Promise<AnyDomain> {
  const full = path.resolve(file);
  if (/\.[cm]?ts$/.test(full)) {
    const { register } = await import("tsx/esm/api");
    register();
  }
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(full).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`could not load the domain module ${full}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const candidates = isDomain(module.default) ? [module.default] : Object.values(module).filter(isDomain);
  if (candidates.length !== 1) {
    throw new ConfigError(
      `${full} must export one domain made with defineDomain (as default export or its only domain export); found ${candidates.length}`,
    );
  }
  return candidates[0]!;
}

/** The `--domain` values of an argument list that are module paths. */
export function domainModuleArguments(argv: readonly string[]): string[] {
  const found: string[] = [];
  argv.forEach((arg, i) => {
    const value =
      arg === "--domain"
        ? argv[i + 1]
        : arg.startsWith("--domain=")
          ? arg.slice("--domain=".length)
          : undefined;
    if (value !== undefined && isDomainModulePath(value)) found.push(value);
  });
  return found;
}
