import { z } from "zod";
import { CabinClassSchema, FlightTypeSchema, InsuranceSchema } from "./db-schema.js";

// Parameter schemas of the airline tools. Names, JSON types and required lists equal the reference's
// tool list (fixtures/tools/airline.json); the constraints are passk's own, so that strict mode rejects
// arguments the reference would silently misread (an unpadded date finds no flight, "first" is no
// cabin) with a message the model can act on.

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export const dateParameter = (what: string) =>
  z.string().regex(DATE, "expected a date written YYYY-MM-DD, such as '2024-05-01'").describe(what);

export const airportParameter = (what: string) =>
  z
    .string()
    .regex(/^[A-Z]{3}$/, "expected a three-letter IATA airport code in capitals, such as 'JFK'")
    .describe(what);

export const userIdParameter = z.string().min(1).describe("The customer's user id, such as 'sara_doe_496'.");

export const reservationIdParameter = z
  .string()
  .min(1)
  .describe("The six-character reservation code, such as 'ZFA04Y'.");

export const paymentIdParameter = z
  .string()
  .min(1)
  .describe(
    "Id of a payment method saved in the customer's profile, such as 'credit_card_7815826' or 'gift_card_7815826'.",
  );

export const cabinParameter = CabinClassSchema.describe(
  "Cabin class for every flight of the reservation: 'basic_economy', 'economy' or 'business'.",
);
export const flightTypeParameter = FlightTypeSchema.describe("'one_way' or 'round_trip'.");
export const insuranceParameter = InsuranceSchema.describe(
  "Whether travel insurance is bought: 'yes' or 'no'.",
);

export const baggageCountParameter = (what: string) => z.int().min(0).describe(what);

export const FlightInfoParameter = z.object({
  flight_number: z.string().min(1).describe("The flight number, such as 'HAT001'."),
  date: dateParameter("The date of that flight, such as '2024-05-01'."),
});

export const PassengerParameter = z.object({
  first_name: z.string().min(1).describe("The passenger's first name."),
  last_name: z.string().min(1).describe("The passenger's last name."),
  dob: dateParameter("The passenger's date of birth, such as '1990-04-05'."),
});

export const PaymentParameter = z.object({
  payment_id: z.string().min(1).describe("Id of a payment method saved in the customer's profile."),
  amount: z.int().min(0).describe("Whole dollars charged to this payment method."),
});

export const flightsParameter = (what: string) => z.array(FlightInfoParameter).min(1).describe(what);
export const passengersParameter = (what: string) => z.array(PassengerParameter).min(1).describe(what);
