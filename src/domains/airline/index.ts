import { defineDomain } from "../../env/domain.js";
import { FlightDbSchema, type FlightDb } from "./db-schema.js";
import { TAU2_TYPES } from "./tau2-types.js";
import {
  bookReservation,
  calculate,
  cancelReservation,
  getFlightStatus,
  getReservationDetails,
  getUserDetails,
  listAllAirports,
  searchDirectFlight,
  searchOnestopFlight,
  sendCertificate,
  transferToHumanAgents,
  updateReservationBaggages,
  updateReservationFlights,
  updateReservationPassengers,
} from "./tools.js";

/** τ²-bench's airline domain: flights, customers and their reservations, one agent-side database. */
export const airlineDomain = defineDomain<FlightDb>({
  name: "airline",
  description:
    "τ²-bench's airline customer service: search flights, book, change and cancel reservations, under a written policy.",
  agent: {
    className: "AirlineTools",
    db: FlightDbSchema,
    // The reference's order (the order the model sees the tools in).
    tools: [
      bookReservation,
      calculate,
      cancelReservation,
      getReservationDetails,
      getUserDetails,
      listAllAirports,
      searchDirectFlight,
      searchOnestopFlight,
      sendCertificate,
      transferToHumanAgents,
      updateReservationBaggages,
      updateReservationFlights,
      updateReservationPassengers,
      getFlightStatus,
    ],
  },
  tau2: { agentTools: "src/tau2/domains/airline/tools.py", types: TAU2_TYPES },
  data: {
    folder: "airline",
    db: "db.json",
    tasks: "tasks.json",
    splits: "split_tasks.json",
    policy: "policy.md",
  },
});
