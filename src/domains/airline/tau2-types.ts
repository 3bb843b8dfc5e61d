import type { z } from "zod";
import {
  CabinClassSchema,
  FlightTypeSchema,
  InsuranceSchema,
  PassengerSchema,
  PaymentSchema,
  ReservationFlightSchema,
} from "./db-schema.js";

// The named types the reference's airline tool signatures use, for rebuilding their parameter schemas
// from the upstream source (the reference-text readers). Enums without a meta id are `Literal` aliases
// upstream; objects with one are pydantic models (their `$defs` title). Structure only: the reference's
// field descriptions are not passk's to repeat.

/** τ² `FlightInfo`: the flight number and date of one flight of a booking. */
const FlightInfoType = ReservationFlightSchema.pick({ flight_number: true, date: true }).meta({
  id: "FlightInfo",
});

export const TAU2_TYPES: ReadonlyMap<string, z.ZodType> = new Map<string, z.ZodType>([
  ["FlightType", FlightTypeSchema],
  ["CabinClass", CabinClassSchema],
  ["Insurance", InsuranceSchema],
  ["FlightInfo", FlightInfoType],
  ["Passenger", PassengerSchema.meta({ id: "Passenger" })],
  ["Payment", PaymentSchema.meta({ id: "Payment" })],
]);
