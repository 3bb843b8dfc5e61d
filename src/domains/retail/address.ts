import { z } from "zod";
import { ToolError } from "../../env/world.js";
import type { Address } from "./db-schema.js";
import { pydanticErrorText } from "../../python/py-values.js";

/** The address parameters of the two address-changing tools, in the reference's order. */
export const addressParameters = {
  address1: z.string().describe("First address line, e.g. '123 Main St'."),
  address2: z.string().describe("Second address line, e.g. 'Apt 1', or '' when there is none."),
  city: z.string().describe("City, e.g. 'San Francisco'."),
  state: z.string().describe("State, e.g. 'CA'."),
  country: z.string().describe("Country, e.g. 'USA'."),
  zip: z.string().describe("Zip code, e.g. '12345'."),
};

const FIELDS = ["address1", "address2", "city", "country", "state", "zip"] as const;

/**
 * The reference builds a pydantic `UserAddress` from the arguments; with raw (lenient) arguments a
 * non-string field fails there. Reproduces pydantic 2.13's ValidationError text.
 */
export function buildAddress(args: Record<(typeof FIELDS)[number], unknown>): Address {
  const problems = FIELDS.filter((field) => typeof args[field] !== "string").map((field) => ({
    loc: [field],
    message: "Input should be a valid string",
    type: "string_type",
    input: args[field],
  }));
  if (problems.length > 0) throw new ToolError(pydanticErrorText("UserAddress", problems), "ValidationError");
  const [address1, address2, city, country, state, zip] = FIELDS.map((field) => args[field] as string);
  return {
    address1: address1!,
    address2: address2!,
    city: city!,
    country: country!,
    state: state!,
    zip: zip!,
  };
}
