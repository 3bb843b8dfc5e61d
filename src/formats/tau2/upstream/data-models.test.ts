import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { DataModelModule } from "../official-manifest.js";
import {
  canonicalDefsJson,
  checkDataModelSource,
  defsDigest,
  readDataModelDefs,
  replaceableDefs,
  withDefs,
  withoutDescriptions,
} from "./data-models.js";
import type { JsonObject } from "./pydantic-schema.js";

const source = `
from enum import Enum


class Mode(str, Enum):
    ON = "on"
    OFF = "off"


class Setting(BaseModelNoExtra):
    """A setting."""

    mode: Mode = Field(Mode.ON, description="The mode.")
    label: str | None = Field(None, description="A label.")
`;

const expectedDefs = {
  Mode: { enum: ["on", "off"], title: "Mode", type: "string" },
  Setting: {
    additionalProperties: false,
    description: "A setting.",
    properties: {
      mode: { $ref: "#/$defs/Mode", default: "on", description: "The mode." },
      label: {
        anyOf: [{ type: "string" }, { type: "null" }],
        default: null,
        description: "A label.",
        title: "Label",
      },
    },
    title: "Setting",
    type: "object",
  },
};

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const module = (digest: string): DataModelModule => ({
  path: "models.py",
  defs: ["Mode", "Setting"],
  digest,
});

describe("canonical JSON and digest", () => {
  it("orders keys as pydantic does, entry names included, then JSON without spaces", () => {
    const shuffled = {
      Setting: { type: "object", properties: { b: { type: "x" }, a: {} } },
      Mode: { title: "M" },
    };
    expect(canonicalDefsJson(shuffled)).toBe(
      '{"Mode":{"title":"M"},"Setting":{"properties":{"b":{"type":"x"},"a":{}},"type":"object"}}',
    );
    expect(defsDigest(shuffled)).toBe(sha256(canonicalDefsJson(shuffled)));
  });
});

describe("a data-model module", () => {
  it("gives its entries, with every entry they need", () => {
    expect(JSON.stringify(readDataModelDefs(source, "models.py", ["Mode", "Setting"]))).toBe(
      JSON.stringify(expectedDefs),
    );
    expect(() => readDataModelDefs(source, "models.py", ["Setting"])).toThrow(
      /defines the schema entries Mode, Setting, not Setting/,
    );
  });

  it("is verified by the digest of those entries", () => {
    const digest = sha256(JSON.stringify(expectedDefs));
    expect(checkDataModelSource(module(digest), source)).toEqual({ status: "verified", defs: expectedDefs });
    const changed = checkDataModelSource(module(digest), source.replace("The mode.", "The mode!"));
    expect(changed.status).toBe("mismatch");
    const unreadable = checkDataModelSource(module(digest), "class Setting(Unknown):\n    x: int\n");
    expect(unreadable.status).toBe("unreadable");
    expect(checkDataModelSource(module(digest), "x = (\n").status).toBe("unreadable");
  });
});

describe("replacing passk's entries", () => {
  const Mode = z.enum(["on", "off"]).meta({ id: "Mode" });
  const Setting = z
    .strictObject({ mode: Mode.default("on"), label: z.string().nullable().default(null) })
    .meta({ id: "Setting" });
  const verified = [{ module: module("-"), defs: expectedDefs as JsonObject }];

  it("strips description keywords only", () => {
    expect(
      withoutDescriptions({
        description: "x",
        properties: { description: { description: "y", type: "string" } },
        default: { description: "kept" },
      }),
    ).toEqual({ properties: { description: { type: "string" } }, default: { description: "kept" } });
  });

  it("uses a module's entries where passk's zod schemas give the same structure", () => {
    const usable = replaceableDefs(verified, new Map<string, z.ZodType>([["Setting", Setting]]));
    expect([...usable.keys()]).toEqual(["Mode", "Setting"]);
    const parameters = {
      $defs: { Mode: { enum: ["on", "off"], title: "Mode", type: "string" }, Other: { title: "Other" } },
      properties: { m: { $ref: "#/$defs/Mode" } },
      title: "parameters",
      type: "object",
    };
    const replaced = withDefs(parameters, usable);
    expect(Object.keys(replaced)).toEqual(Object.keys(parameters));
    expect(replaced.$defs).toEqual({ Mode: expectedDefs.Mode, Other: { title: "Other" } });
  });

  it("leaves a module out when the structure differs, or the domain does not know its types", () => {
    const Looser = z.object({ mode: Mode.default("on"), label: z.string().nullable().default(null) });
    expect(replaceableDefs(verified, new Map<string, z.ZodType>([["Setting", Looser]])).size).toBe(0);
    expect(replaceableDefs(verified, new Map<string, z.ZodType>([["Mode", Mode]])).size).toBe(0);
    expect(replaceableDefs(verified, new Map()).size).toBe(0);
    expect(replaceableDefs(verified, undefined).size).toBe(0);
  });
});
