import type { PyModel } from "./py-model.js";

// The reference's pydantic models that the airline tools build from arguments, described for the
// lenient-mode validation in py-model.ts (field order = the models' order = pydantic's error order).

export const FLIGHT_INFO: PyModel = {
  name: "FlightInfo",
  fields: [
    ["flight_number", "str"],
    ["date", "str"],
  ],
};

export const PASSENGER: PyModel = {
  name: "Passenger",
  fields: [
    ["first_name", "str"],
    ["last_name", "str"],
    ["dob", "str"],
  ],
};

export const PAYMENT: PyModel = {
  name: "Payment",
  fields: [
    ["payment_id", "str"],
    ["amount", "int"],
  ],
};

export const CERTIFICATE: PyModel = {
  name: "Certificate",
  fields: [
    ["source", { literal: ["certificate"] }],
    ["id", "str"],
    ["amount", "float"],
  ],
};

const RESERVATION_FLIGHT: PyModel = {
  name: "ReservationFlight",
  fields: [
    ["flight_number", "str"],
    ["origin", "str"],
    ["destination", "str"],
    ["date", "str"],
    ["price", "int"],
  ],
};

/** A new reservation (its `status` is left to the default, so it is not listed). */
export const RESERVATION: PyModel = {
  name: "Reservation",
  fields: [
    ["reservation_id", "str"],
    ["user_id", "str"],
    ["origin", "str"],
    ["destination", "str"],
    ["flight_type", { literal: ["round_trip", "one_way"] }],
    ["cabin", { literal: ["business", "economy", "basic_economy"] }],
    ["flights", { listOf: RESERVATION_FLIGHT }],
    ["passengers", { listOf: PASSENGER }],
    ["payment_history", { listOf: PAYMENT }],
    ["created_at", "str"],
    ["total_baggages", "int"],
    ["nonfree_baggages", "int"],
    ["insurance", { literal: ["yes", "no"] }],
  ],
};
