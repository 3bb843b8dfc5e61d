import { describe, expect, it } from "vitest";
import { ConfigError, InvalidInputFileError, PasskError, UnknownNameError } from "./errors.js";
import { InfrastructureError } from "./llm.js";

describe("PasskError.isInstance", () => {
  const config = new ConfigError("bad key");
  const unknown = new UnknownNameError("run", "r1", ["r2"]);
  const infra = new InfrastructureError("HTTP 503", 5);
  const invalid = new InvalidInputFileError("f.json", [], "fix it");

  it("recognises every passk error as a PasskError, and nothing else", () => {
    for (const error of [config, unknown, infra, invalid]) expect(PasskError.isInstance(error)).toBe(true);
    expect(PasskError.isInstance(new Error("x"))).toBe(false);
    expect(PasskError.isInstance({ code: "config", message: "x" })).toBe(false);
    expect(PasskError.isInstance(undefined)).toBe(false);
  });

  it("on a subclass, is true only for that class (and its subclasses)", () => {
    expect(ConfigError.isInstance(config)).toBe(true);
    expect(ConfigError.isInstance(unknown)).toBe(false);
    expect(UnknownNameError.isInstance(unknown)).toBe(true);
    expect(UnknownNameError.isInstance(invalid)).toBe(false);
    expect(InfrastructureError.isInstance(infra)).toBe(true);
    expect(InfrastructureError.isInstance(config)).toBe(false);
    class KeyRefusedError extends ConfigError {}
    expect(ConfigError.isInstance(new KeyRefusedError("refused"))).toBe(true);
  });

  it("recognises an error made by another copy of the package (same class name, other class object)", () => {
    class ConfigErrorCopy extends PasskError {}
    Object.defineProperty(ConfigErrorCopy, "name", { value: "ConfigError" });
    expect(ConfigError.isInstance(new ConfigErrorCopy("config", "from another copy"))).toBe(true);
    expect(new ConfigErrorCopy("config", "x") instanceof ConfigError).toBe(false);
  });
});
