import { z } from "zod";
import { pyDict } from "../../env/schema-helpers.js";

// The airline database as τ²-bench's pydantic models describe it (commit a2c0247). Field order is the
// models' order (tool outputs print fields in it), `z.number()` is a Python float and `z.int()` an int:
// both decide how values print in outputs and in the DB hash.

export const FlightTypeSchema = z.enum(["round_trip", "one_way"]);
export const CabinClassSchema = z.enum(["business", "economy", "basic_economy"]);
export const InsuranceSchema = z.enum(["yes", "no"]);
export const MembershipLevelSchema = z.enum(["gold", "silver", "regular"]);
export type CabinClass = z.infer<typeof CabinClassSchema>;

export const AirportCodeSchema = z.object({ iata: z.string(), city: z.string() });

export const NameSchema = z.object({ first_name: z.string(), last_name: z.string() });

export const AddressSchema = z.object({
  address1: z.string(),
  address2: z.string().nullable().default(null),
  city: z.string(),
  country: z.string(),
  state: z.string(),
  zip: z.string(),
});

/** One line of a reservation's payment history; refunds are negative. */
export const PaymentSchema = z.object({ payment_id: z.string(), amount: z.int() });
export type Payment = z.infer<typeof PaymentSchema>;

export const CreditCardSchema = z.object({
  source: z.literal("credit_card"),
  id: z.string(),
  brand: z.string(),
  last_four: z.string(),
});

export const GiftCardSchema = z.object({
  source: z.literal("gift_card"),
  id: z.string(),
  amount: z.number(),
});

export const CertificateSchema = z.object({
  source: z.literal("certificate"),
  id: z.string(),
  amount: z.number(),
});
export type Certificate = z.infer<typeof CertificateSchema>;

export const PaymentMethodSchema = z.discriminatedUnion("source", [
  CreditCardSchema,
  GiftCardSchema,
  CertificateSchema,
]);
export type PaymentMethod = z.infer<typeof PaymentMethodSchema>;

export const PassengerSchema = z.object({
  first_name: z.string(),
  last_name: z.string(),
  dob: z.string(),
});
export type Passenger = z.infer<typeof PassengerSchema>;

/** Seats left, or prices, per cabin class (a dict in the reference: file key order is kept). */
const PerCabinSchema = pyDict(z.int());

export const FlightDateStatusAvailableSchema = z.object({
  status: z.literal("available"),
  available_seats: PerCabinSchema,
  prices: PerCabinSchema,
});
export type FlightDateStatusAvailable = z.infer<typeof FlightDateStatusAvailableSchema>;

const FlightDateStatusLandedSchema = z.object({
  status: z.literal("landed"),
  actual_departure_time_est: z.string(),
  actual_arrival_time_est: z.string(),
});

const FlightDateStatusCancelledSchema = z.object({ status: z.literal("cancelled") });

const FlightDateStatusDelayedSchema = z.object({
  status: z.literal("delayed"),
  estimated_departure_time_est: z.string(),
  estimated_arrival_time_est: z.string(),
});

const FlightDateStatusFlyingSchema = z.object({
  status: z.literal("flying"),
  actual_departure_time_est: z.string(),
  estimated_arrival_time_est: z.string(),
});

const FlightDateStatusOnTimeSchema = z.object({
  status: z.literal("on time"),
  estimated_departure_time_est: z.string(),
  estimated_arrival_time_est: z.string(),
});

// The serialiser picks the first union member whose fields cover a value's keys, so the one-field
// `cancelled` shape goes first (it would otherwise be dumped as an `available` with null seats).
export const FlightDateStatusSchema = z.discriminatedUnion("status", [
  FlightDateStatusCancelledSchema,
  FlightDateStatusAvailableSchema,
  FlightDateStatusLandedSchema,
  FlightDateStatusDelayedSchema,
  FlightDateStatusFlyingSchema,
  FlightDateStatusOnTimeSchema,
]);
export type FlightDateStatus = z.infer<typeof FlightDateStatusSchema>;

export const FlightSchema = z.object({
  flight_number: z.string(),
  origin: z.string(),
  destination: z.string(),
  scheduled_departure_time_est: z.string(),
  scheduled_arrival_time_est: z.string(),
  dates: pyDict(FlightDateStatusSchema),
});
export type Flight = z.infer<typeof FlightSchema>;

/** A search result: one flight on one date (the reference leaves `date` null for direct searches). */
export const DirectFlightSchema = z.object({
  flight_number: z.string(),
  origin: z.string(),
  destination: z.string(),
  status: z.literal("available"),
  scheduled_departure_time_est: z.string(),
  scheduled_arrival_time_est: z.string(),
  date: z.string().nullable().default(null),
  available_seats: PerCabinSchema,
  prices: PerCabinSchema,
});
export type DirectFlight = z.infer<typeof DirectFlightSchema>;

export const ReservationFlightSchema = z.object({
  flight_number: z.string(),
  origin: z.string(),
  destination: z.string(),
  date: z.string(),
  price: z.int(),
});
export type ReservationFlight = z.infer<typeof ReservationFlightSchema>;

export const UserSchema = z.object({
  user_id: z.string(),
  name: NameSchema,
  address: AddressSchema,
  email: z.string(),
  dob: z.string(),
  payment_methods: pyDict(PaymentMethodSchema),
  saved_passengers: z.array(PassengerSchema),
  membership: MembershipLevelSchema,
  reservations: z.array(z.string()),
});
export type User = z.infer<typeof UserSchema>;

export const ReservationSchema = z.object({
  reservation_id: z.string(),
  user_id: z.string(),
  origin: z.string(),
  destination: z.string(),
  flight_type: FlightTypeSchema,
  cabin: CabinClassSchema,
  flights: z.array(ReservationFlightSchema),
  passengers: z.array(PassengerSchema),
  payment_history: z.array(PaymentSchema),
  created_at: z.string(),
  total_baggages: z.int(),
  nonfree_baggages: z.int(),
  insurance: InsuranceSchema,
  status: z.literal("cancelled").nullable().default(null),
});
export type Reservation = z.infer<typeof ReservationSchema>;

export const FlightDbSchema = z.object({
  flights: pyDict(FlightSchema),
  users: pyDict(UserSchema),
  reservations: pyDict(ReservationSchema),
});
export type FlightDb = z.infer<typeof FlightDbSchema>;
