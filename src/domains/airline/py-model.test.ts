import { describe, expect, it } from "vitest";
import { buildPyModel, modelsIfAllDicts } from "./py-model.js";
import type { PyModel } from "./py-model.js";
import { CERTIFICATE, FLIGHT_INFO, PASSENGER, PAYMENT } from "./reference-models.js";

// Expected texts are `str(ValidationError)` of pydantic 2.13.4 for the same models and inputs.
const docs = (type: string) => `    For further information visit https://errors.pydantic.dev/2.13/v/${type}`;

function errorOf(model: PyModel, input: Record<string, unknown>): string {
  try {
    buildPyModel(model, input);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected a validation error");
}

describe("buildPyModel reproduces pydantic's lax validation and its error text", () => {
  it("reports a missing field with the whole input", () => {
    expect(errorOf(FLIGHT_INFO, { flight_number: "HAT060" })).toBe(
      [
        "1 validation error for FlightInfo",
        "date",
        "  Field required [type=missing, input_value={'flight_number': 'HAT060'}, input_type=dict]",
        docs("missing"),
      ].join("\n"),
    );
  });

  it("words each type error as pydantic does", () => {
    expect(errorOf(PASSENGER, { first_name: 3, last_name: "L", dob: "1990-01-01" })).toContain(
      "first_name\n  Input should be a valid string [type=string_type, input_value=3, input_type=int]",
    );
    expect(errorOf(PAYMENT, { payment_id: "gift_card_1", amount: 1.5 })).toContain(
      "amount\n  Input should be a valid integer, got a number with a fractional part [type=int_from_float, input_value=1.5, input_type=float]",
    );
    expect(errorOf(PAYMENT, { payment_id: "gift_card_1", amount: "x" })).toContain(
      "Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='x', input_type=str]",
    );
    expect(errorOf(PAYMENT, { payment_id: "gift_card_1", amount: null })).toContain(
      "Input should be a valid integer [type=int_type, input_value=None, input_type=NoneType]",
    );
    expect(errorOf(CERTIFICATE, { source: "certificate", id: "c", amount: "abc" })).toContain(
      "Input should be a valid number, unable to parse string as a number [type=float_parsing, input_value='abc', input_type=str]",
    );
  });

  it("lists every error of a nested model with its location", () => {
    const reservation: PyModel = {
      name: "Reservation",
      fields: [
        ["cabin", { literal: ["business", "economy", "basic_economy"] }],
        ["passengers", { listOf: PASSENGER }],
        ["total_baggages", "int"],
      ],
    };
    const input = {
      cabin: "first",
      passengers: ["Ann Lee", { first_name: "A", last_name: "B" }],
      total_baggages: "2",
    };
    expect(errorOf(reservation, input)).toBe(
      [
        "3 validation errors for Reservation",
        "cabin",
        "  Input should be 'business', 'economy' or 'basic_economy' [type=literal_error, input_value='first', input_type=str]",
        docs("literal_error"),
        "passengers.0",
        "  Input should be a valid dictionary or instance of Passenger [type=model_type, input_value='Ann Lee', input_type=str]",
        docs("model_type"),
        "passengers.1.dob",
        "  Field required [type=missing, input_value={'first_name': 'A', 'last_name': 'B'}, input_type=dict]",
        docs("missing"),
      ].join("\n"),
    );
  });

  it("cuts long input values to 25 + '...' + 24 characters", () => {
    expect(errorOf(FLIGHT_INFO, { flight_number: "A".repeat(60) })).toContain(
      "input_value={'flight_number': 'AAAAAA...AAAAAAAAAAAAAAAAAAAAAA'}, input_type=dict]",
    );
  });

  it("coerces what lax mode accepts", () => {
    expect(buildPyModel(PAYMENT, { payment_id: "p", amount: "12" })).toEqual({ payment_id: "p", amount: 12 });
    expect(buildPyModel(PAYMENT, { payment_id: "p", amount: true })).toEqual({ payment_id: "p", amount: 1 });
    expect(buildPyModel(CERTIFICATE, { source: "certificate", id: "c", amount: "12.5" }).amount).toBe(12.5);
  });
});

describe("modelsIfAllDicts", () => {
  it("converts only when every item is a dict (an empty list counts)", () => {
    expect(modelsIfAllDicts(FLIGHT_INFO, [{ flight_number: "HAT1", date: "d", x: 1 }])).toEqual({
      converted: true,
      items: [{ flight_number: "HAT1", date: "d" }],
    });
    expect(modelsIfAllDicts(FLIGHT_INFO, [])).toEqual({ converted: true, items: [] });
    expect(modelsIfAllDicts(FLIGHT_INFO, [{ flight_number: "HAT1", date: "d" }, "HAT2"]).converted).toBe(
      false,
    );
  });
});
