import { z } from "zod";
import { ConfigError } from "../core/errors.js";
import { redactUrl } from "../llm/redact.js";

/** Where a run's traces go, read from `--otel` and the standard OpenTelemetry variables. */
export interface OtelSettings {
  /** The OTLP/HTTP traces URL, e.g. `http://localhost:4318/v1/traces`. */
  tracesUrl: string;
  /** Headers of every export (`OTEL_EXPORTER_OTLP_HEADERS`): credentials, never printed. */
  headers: Record<string, string>;
  /** Per export, retries included. */
  timeoutMs: number;
  /** `service.name` of the traces (`OTEL_SERVICE_NAME`, else `passk`). */
  serviceName: string;
  /** PEM files for TLS (`OTEL_EXPORTER_OTLP_CERTIFICATE`, `_CLIENT_CERTIFICATE`, `_CLIENT_KEY`). */
  tls: { ca?: string; cert?: string; key?: string };
}

/** The collector OTLP/HTTP receivers listen on by default. */
export const DEFAULT_OTLP_ENDPOINT = "http://localhost:4318";
const DEFAULT_TIMEOUT_MS = 10_000;

const blankAsUnset = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

/** The variables the official exporter reads (the specification's names), as passk reads them too. */
const OtelEnvSchema = z.object({
  OTEL_EXPORTER_OTLP_ENDPOINT: blankAsUnset,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: blankAsUnset,
  OTEL_EXPORTER_OTLP_HEADERS: blankAsUnset,
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: blankAsUnset,
  OTEL_EXPORTER_OTLP_TIMEOUT: blankAsUnset,
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: blankAsUnset,
  OTEL_SERVICE_NAME: blankAsUnset,
  OTEL_EXPORTER_OTLP_CERTIFICATE: blankAsUnset,
  OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE: blankAsUnset,
  OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: blankAsUnset,
  OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE: blankAsUnset,
  OTEL_EXPORTER_OTLP_CLIENT_KEY: blankAsUnset,
  OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY: blankAsUnset,
  OTEL_SDK_DISABLED: blankAsUnset,
  OTEL_TRACES_EXPORTER: blankAsUnset,
});

/**
 * Whether and where to send traces: `--otel [endpoint]` turns tracing on (its endpoint, else the
 * environment's, else {@link DEFAULT_OTLP_ENDPOINT}); without the flag, an OTLP endpoint in the
 * environment does (unless `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`); `--no-otel` turns it
 * off. An endpoint is a base URL that gets `/v1/traces`, as `OTEL_EXPORTER_OTLP_ENDPOINT` does;
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is used as it is.
 *
 * @example
 * resolveOtelSettings({ flag: "https://cloud.langfuse.com/api/public/otel", env: {} })?.tracesUrl
 * // "https://cloud.langfuse.com/api/public/otel/v1/traces"
 */
export function resolveOtelSettings(input: {
  flag: string | boolean | undefined;
  env: Readonly<Record<string, string | undefined>>;
}): OtelSettings | undefined {
  const env = OtelEnvSchema.parse(input.env);
  const { flag } = input;
  if (flag === false) return undefined;
  const disabled =
    env.OTEL_SDK_DISABLED?.toLowerCase() === "true" || env.OTEL_TRACES_EXPORTER?.toLowerCase() === "none";
  const fromEnv = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (flag === undefined && (fromEnv === undefined || disabled)) return undefined;

  let tracesUrl: string;
  let source: string;
  if (typeof flag === "string") {
    tracesUrl = withTracesPath(flag.trim());
    source = "--otel";
  } else if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined) {
    tracesUrl = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    source = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
  } else if (env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined) {
    tracesUrl = withTracesPath(env.OTEL_EXPORTER_OTLP_ENDPOINT);
    source = "OTEL_EXPORTER_OTLP_ENDPOINT";
  } else {
    tracesUrl = withTracesPath(DEFAULT_OTLP_ENDPOINT);
    source = "the default endpoint";
  }
  if (!URL.canParse(tracesUrl) || !/^https?:$/.test(new URL(tracesUrl).protocol))
    throw new ConfigError(
      `${source} "${redactUrl(tracesUrl)}" is not an http(s) URL; give the collector's OTLP/HTTP endpoint, e.g. ${DEFAULT_OTLP_ENDPOINT}`,
    );

  return {
    tracesUrl,
    headers: {
      ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS, "OTEL_EXPORTER_OTLP_HEADERS"),
      ...parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, "OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
    },
    timeoutMs:
      parseTimeout(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") ??
      parseTimeout(env.OTEL_EXPORTER_OTLP_TIMEOUT, "OTEL_EXPORTER_OTLP_TIMEOUT") ??
      DEFAULT_TIMEOUT_MS,
    serviceName: env.OTEL_SERVICE_NAME ?? "passk",
    tls: {
      ...optional("ca", env.OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE ?? env.OTEL_EXPORTER_OTLP_CERTIFICATE),
      ...optional(
        "cert",
        env.OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE ?? env.OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE,
      ),
      ...optional("key", env.OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY ?? env.OTEL_EXPORTER_OTLP_CLIENT_KEY),
    },
  };
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

/** A base endpoint with the traces path appended, unless it already ends with it. */
function withTracesPath(endpoint: string): string {
  if (/\/v1\/traces\/?$/.test(endpoint)) return endpoint;
  return `${endpoint.replace(/\/+$/, "")}/v1/traces`;
}

/** `key1=value1,key2=value2`, values percent-encoded (the specification's W3C-baggage-like format). */
function parseHeaders(text: string | undefined, variable: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (text === undefined) return headers;
  for (const pair of text.split(",")) {
    if (pair.trim() === "") continue;
    const at = pair.indexOf("=");
    // The value may be a credential: the message names the variable and the entry's position only.
    if (at <= 0)
      throw new ConfigError(
        `${variable} must be a comma-separated list of name=value pairs (e.g. Authorization=Basic%20…); an entry has no "="`,
      );
    const value = pair.slice(at + 1).trim();
    let decoded: string;
    try {
      decoded = decodeURIComponent(value);
    } catch {
      decoded = value;
    }
    headers[pair.slice(0, at).trim()] = decoded;
  }
  return headers;
}

function parseTimeout(text: string | undefined, variable: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new ConfigError(`${variable} "${text}" is not a positive number of milliseconds; e.g. 10000`);
  return value;
}
