import { ConfigError } from "../core/errors.js";
import { changeOfMind, falseClaim, omission, persona } from "./customer-perturbations.js";
import { customerInjection, toolInjection } from "./injection.js";
import type { PerturbationDefinition } from "./perturbation.js";
import { toolFaults } from "./tool-faults.js";

/** A perturbation chosen by a spec, its settings parsed. */
export interface ResolvedPerturbation {
  definition: PerturbationDefinition;
  params: unknown;
  /** `name@version`: what marks and gates name. */
  id: string;
  /** The spec written canonically (`name@version:key=value,…`, keys sorted): part of the run's identity. */
  spec: string;
}

/** passk's own perturbations. */
export const builtinPerturbations: readonly PerturbationDefinition[] = [
  toolFaults,
  omission,
  falseClaim,
  changeOfMind,
  persona,
  toolInjection,
  customerInjection,
] as readonly PerturbationDefinition[];

const SPEC = /^(?<name>[a-z][a-z0-9-]*)(?:@(?<version>\d+))?(?::(?<settings>.*))?$/;

/** A set of perturbations by name: passk's own, and a team's added with {@link createPerturbationRegistry}. */
export interface PerturbationRegistry {
  names: readonly string[];
  get(name: string): PerturbationDefinition | undefined;
  /**
   * Resolve `NAME[@VERSION][:KEY=VALUE[,KEY=VALUE…]]`, e.g. `tool-faults:rate=0.3,kinds=transient+timeout`.
   * @example registry.resolve("persona:trait=terse").spec // "persona@1:trait=terse"
   */
  resolve(spec: string): ResolvedPerturbation;
}

/**
 * A registry of perturbations; names must be unique.
 * @example createPerturbationRegistry([...builtinPerturbations, myPerturbation])
 */
export function createPerturbationRegistry(
  definitions: readonly PerturbationDefinition[] = builtinPerturbations,
): PerturbationRegistry {
  const byName = new Map<string, PerturbationDefinition>();
  for (const definition of definitions) {
    if (!SPEC.test(definition.name) || definition.name.includes("@"))
      throw new ConfigError(
        `perturbation name "${definition.name}" must be lower-case letters, digits and dashes, starting with a letter`,
      );
    if (byName.has(definition.name))
      throw new ConfigError(`two perturbations are named "${definition.name}"; give yours another name`);
    byName.set(definition.name, definition);
  }
  const names = [...byName.keys()];
  return {
    names,
    get: (name) => byName.get(name),
    resolve(spec) {
      const match = SPEC.exec(spec.trim());
      if (!match?.groups)
        throw new ConfigError(
          `--perturb "${spec}" is not NAME[@VERSION][:KEY=VALUE,…], e.g. --perturb tool-faults:rate=0.2`,
        );
      const { name, version, settings } = match.groups as {
        name: string;
        version?: string;
        settings?: string;
      };
      const definition = byName.get(name);
      if (!definition)
        throw new ConfigError(`--perturb "${spec}": no perturbation "${name}" (known: ${names.join(", ")})`);
      if (version !== undefined && Number(version) !== definition.version)
        throw new ConfigError(
          `--perturb "${spec}": ${name} is at version ${definition.version} here; version ${version} is not available (drop @${version} or use @${definition.version})`,
        );
      // A Map, then own properties: a key such as `__proto__` is a setting like any other (and refused
      // as unknown), never the prototype of the settings object.
      const pairs = new Map<string, string>();
      for (const part of (settings ?? "").split(",").filter((p) => p.trim() !== "")) {
        const [key, ...rest] = part.split("=");
        if (!key || rest.length === 0)
          throw new ConfigError(`--perturb "${spec}": "${part}" is not KEY=VALUE, e.g. rate=0.2`);
        if (pairs.has(key.trim()))
          throw new ConfigError(`--perturb "${spec}": ${key.trim()} is given twice; give each setting once`);
        pairs.set(key.trim(), rest.join("=").trim());
      }
      const given: Record<string, string> = Object.fromEntries(pairs);
      const parsed = definition.params.safeParse(given);
      if (!parsed.success)
        throw new ConfigError(
          `--perturb "${spec}": ${parsed.error.issues
            .map((i) =>
              i.code === "unrecognized_keys"
                ? `${name} has no setting ${i.keys.join(", ")}`
                : `${i.path.join(".") || "settings"}: ${i.message}`,
            )
            .join("; ")}`,
        );
      const id = `${name}@${definition.version}`;
      const keys = Object.keys(given).sort();
      // A number or flag is written as its value reads (`rate=0x1` and `rate=1.0` are `rate=1`), so one
      // setting has one spelling in the run's identity.
      const values = parsed.data as Record<string, unknown>;
      const written = (key: string) => {
        const value = values[key];
        return typeof value === "number" || typeof value === "boolean" ? String(value) : given[key];
      };
      return {
        definition,
        params: parsed.data,
        id,
        spec: keys.length === 0 ? id : `${id}:${keys.map((k) => `${k}=${written(k)}`).join(",")}`,
      };
    },
  };
}

/**
 * Specs resolved against a registry, each perturbation named once (`where` names the input in the
 * error: `--perturb`, a request's `perturbations`).
 */
export function resolvePerturbations(
  registry: PerturbationRegistry,
  specs: readonly string[],
  where: string,
): ResolvedPerturbation[] {
  const resolved = specs.map((spec) => registry.resolve(spec));
  const names = resolved.map((p) => p.definition.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined)
    throw new ConfigError(
      `${where} names ${twice} twice; give each perturbation once, with all its settings`,
    );
  return resolved;
}
