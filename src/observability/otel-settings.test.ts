import { describe, expect, it } from "vitest";
import { ConfigError } from "../core/errors.js";
import { resolveOtelSettings } from "./otel-settings.js";

describe("resolveOtelSettings", () => {
  it("is off without --otel and without an endpoint in the environment", () => {
    expect(resolveOtelSettings({ flag: undefined, env: {} })).toBeUndefined();
    expect(
      resolveOtelSettings({ flag: undefined, env: { OTEL_EXPORTER_OTLP_ENDPOINT: "  " } }),
    ).toBeUndefined();
  });

  it("--otel alone sends to the environment's endpoint, else the collector's default", () => {
    expect(resolveOtelSettings({ flag: true, env: {} })?.tracesUrl).toBe("http://localhost:4318/v1/traces");
    expect(
      resolveOtelSettings({ flag: true, env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" } })
        ?.tracesUrl,
    ).toBe("http://collector:4318/v1/traces");
  });

  it("an endpoint gets /v1/traces, as OTEL_EXPORTER_OTLP_ENDPOINT does; the traces variable is used as it is", () => {
    expect(
      resolveOtelSettings({ flag: "https://cloud.langfuse.com/api/public/otel", env: {} })?.tracesUrl,
    ).toBe("https://cloud.langfuse.com/api/public/otel/v1/traces");
    expect(resolveOtelSettings({ flag: "http://localhost:6006/v1/traces", env: {} })?.tracesUrl).toBe(
      "http://localhost:6006/v1/traces",
    );
    expect(
      resolveOtelSettings({
        flag: undefined,
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318",
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://b:9000/custom/traces",
        },
      })?.tracesUrl,
    ).toBe("http://b:9000/custom/traces");
  });

  it("the environment's endpoint turns tracing on by itself, unless the SDK is disabled or --no-otel is given", () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(resolveOtelSettings({ flag: undefined, env })?.tracesUrl).toBe("http://collector:4318/v1/traces");
    expect(resolveOtelSettings({ flag: false, env })).toBeUndefined();
    expect(
      resolveOtelSettings({ flag: undefined, env: { ...env, OTEL_SDK_DISABLED: "true" } }),
    ).toBeUndefined();
    expect(
      resolveOtelSettings({ flag: undefined, env: { ...env, OTEL_TRACES_EXPORTER: "none" } }),
    ).toBeUndefined();
  });

  it("reads headers (percent-decoded, the traces variable winning), the timeout, the service name and the TLS files", () => {
    const settings = resolveOtelSettings({
      flag: true,
      env: {
        OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20cGs6c2s=, x-team = a",
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-team=b",
        OTEL_EXPORTER_OTLP_TIMEOUT: "2500",
        OTEL_SERVICE_NAME: "support-bot-evals",
        OTEL_EXPORTER_OTLP_CERTIFICATE: "/etc/ca.pem",
        OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY: "/etc/client-key.pem",
      },
    });
    expect(settings).toEqual({
      tracesUrl: "http://localhost:4318/v1/traces",
      headers: { Authorization: "Basic cGs6c2s=", "x-team": "b" },
      timeoutMs: 2500,
      serviceName: "support-bot-evals",
      tls: { ca: "/etc/ca.pem", key: "/etc/client-key.pem" },
    });
  });

  it("names the input and the fix for a bad endpoint, header list or timeout, without printing credentials", () => {
    const bad = (flag: string | true, env: Record<string, string> = {}) => {
      try {
        resolveOtelSettings({ flag, env });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error("expected a ConfigError");
    };
    expect(bad("ftp://user:secret-pass@collector")).toBe(
      '--otel "ftp://[redacted]:[redacted]@collector/v1/traces" is not an http(s) URL; give the collector\'s OTLP/HTTP endpoint, e.g. http://localhost:4318',
    );
    expect(bad(true, { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toContain(
      'OTEL_EXPORTER_OTLP_ENDPOINT "collector:4318/v1/traces" is not an http(s) URL',
    );
    const headers = bad(true, { OTEL_EXPORTER_OTLP_HEADERS: "Bearer-only-token-123" });
    expect(headers).toContain(
      "OTEL_EXPORTER_OTLP_HEADERS must be a comma-separated list of name=value pairs",
    );
    expect(headers).not.toContain("token-123");
    expect(bad(true, { OTEL_EXPORTER_OTLP_TIMEOUT: "soon" })).toBe(
      'OTEL_EXPORTER_OTLP_TIMEOUT "soon" is not a positive number of milliseconds; e.g. 10000',
    );
  });
});
