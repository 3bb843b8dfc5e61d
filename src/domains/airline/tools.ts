import { z } from "zod";
import { defineTool } from "../../env/tool.js";
import { ToolError } from "../../env/world.js";
import { calculateTool } from "../shared/calculator/calculate-tool.js";
import {
  AirportCodeSchema,
  DirectFlightSchema,
  ReservationSchema,
  UserSchema,
  type Certificate,
  type DirectFlight,
  type FlightDb,
} from "./db-schema.js";
import { airportParameter, dateParameter, reservationIdParameter, userIdParameter } from "./parameters.js";
import { buildPyModel } from "./py-model.js";
import { pyDictGet, pyStr } from "../../python/py-values.js";
import { getFlightInstance, getReservation, getUser, NEW_CERTIFICATE_IDS } from "./records.js";
import { CERTIFICATE } from "./reference-models.js";

export {
  bookReservation,
  cancelReservation,
  updateReservationBaggages,
  updateReservationFlights,
  updateReservationPassengers,
} from "./reservation-tools.js";

export const calculate = calculateTool<FlightDb>("evaluable");

export const getReservationDetails = defineTool({
  name: "get_reservation_details",
  description: "Look up a reservation: flights, passengers, payments, baggage, insurance and status.",
  kind: "read",
  parameters: z.object({ reservation_id: reservationIdParameter }),
  returns: ReservationSchema,
  run(db: FlightDb, { reservation_id }) {
    return getReservation(db, reservation_id);
  },
});

export const getUserDetails = defineTool({
  name: "get_user_details",
  description:
    "Look up a customer's profile: name, address, date of birth, membership, saved payment methods, saved passengers and reservation codes.",
  kind: "read",
  parameters: z.object({ user_id: userIdParameter }),
  returns: UserSchema,
  run(db: FlightDb, { user_id }) {
    return getUser(db, user_id);
  },
});

const AIRPORTS: ReadonlyArray<readonly [string, string]> = [
  ["SFO", "San Francisco"],
  ["JFK", "New York"],
  ["LAX", "Los Angeles"],
  ["ORD", "Chicago"],
  ["DFW", "Dallas"],
  ["DEN", "Denver"],
  ["SEA", "Seattle"],
  ["ATL", "Atlanta"],
  ["MIA", "Miami"],
  ["BOS", "Boston"],
  ["PHX", "Phoenix"],
  ["IAH", "Houston"],
  ["LAS", "Las Vegas"],
  ["MCO", "Orlando"],
  ["EWR", "Newark"],
  ["CLT", "Charlotte"],
  ["MSP", "Minneapolis"],
  ["DTW", "Detroit"],
  ["PHL", "Philadelphia"],
  ["LGA", "LaGuardia"],
];

export const listAllAirports = defineTool({
  name: "list_all_airports",
  description: "List the airports the airline serves, with their IATA codes and cities.",
  kind: "read",
  parameters: z.object({}),
  returns: z.array(AirportCodeSchema),
  run() {
    return AIRPORTS.map(([iata, city]) => ({ iata, city }));
  },
});

/**
 * Flights with seats for sale on `date`. `null` for origin or destination means any airport (as
 * `None` does in the reference); `leaveAfter` compares scheduled departure times as text.
 */
function searchDirect(
  db: FlightDb,
  date: unknown,
  origin: unknown,
  destination: unknown,
  leaveAfter?: string,
): DirectFlight[] {
  const results: DirectFlight[] = [];
  for (const flight of db.flights.values()) {
    if (origin !== null && flight.origin !== origin) continue;
    if (destination !== null && flight.destination !== destination) continue;
    const instance = pyDictGet(flight.dates, date);
    if (instance?.status !== "available") continue;
    if (leaveAfter !== undefined && !(flight.scheduled_departure_time_est >= leaveAfter)) continue;
    results.push({
      flight_number: flight.flight_number,
      origin: flight.origin,
      destination: flight.destination,
      status: "available",
      scheduled_departure_time_est: flight.scheduled_departure_time_est,
      scheduled_arrival_time_est: flight.scheduled_arrival_time_est,
      date: null,
      available_seats: instance.available_seats,
      prices: instance.prices,
    });
  }
  return results;
}

export const searchDirectFlight = defineTool({
  name: "search_direct_flight",
  description:
    "Find nonstop flights from one airport to another on a date that still have seats for sale, with seats left and prices per cabin.",
  kind: "read",
  parameters: z.object({
    origin: airportParameter("Departure airport code, such as 'JFK'."),
    destination: airportParameter("Arrival airport code, such as 'LAX'."),
    date: dateParameter("Departure date, such as '2024-05-01'."),
  }),
  returns: z.array(DirectFlightSchema),
  run(db: FlightDb, { origin, destination, date }) {
    return searchDirect(db, date, origin, destination);
  },
});

export const searchOnestopFlight = defineTool({
  name: "search_onestop_flight",
  description:
    "Find connections with one stop from one airport to another starting on a date: pairs of flights where the second leaves the connecting airport after the first arrives.",
  kind: "read",
  parameters: z.object({
    origin: airportParameter("Departure airport code, such as 'JFK'."),
    destination: airportParameter("Final arrival airport code, such as 'LAX'."),
    date: dateParameter("Date of the first flight, such as '2024-05-01'."),
  }),
  returns: z.array(z.array(DirectFlightSchema)),
  run(db: FlightDb, { origin, destination, date }) {
    const results: DirectFlight[][] = [];
    for (const first of searchDirect(db, date, origin, null)) {
      first.date = date;
      // The reference builds the next day's date without zero padding ("2024-05-6"), which matches no
      // date in the database: overnight first legs never connect on days 1-8.
      const secondDate = first.scheduled_arrival_time_est.includes("+1")
        ? `2024-05-${Number.parseInt(String(date).slice(-2), 10) + 1}`
        : date;
      for (const second of searchDirect(
        db,
        secondDate,
        first.destination,
        destination,
        first.scheduled_arrival_time_est,
      )) {
        second.date = secondDate;
        results.push([first, second]);
      }
    }
    return results;
  },
});

export const sendCertificate = defineTool({
  name: "send_certificate",
  description:
    "Add a travel certificate of the given amount to a customer's payment methods. Use only when the policy allows compensation.",
  kind: "write",
  parameters: z.object({
    user_id: userIdParameter,
    amount: z.int().min(1).describe("Value of the certificate in whole dollars."),
  }),
  run(db: FlightDb, { user_id, amount }) {
    const user = getUser(db, user_id);
    const id = NEW_CERTIFICATE_IDS.find((candidate) => !user.payment_methods.has(candidate));
    if (id === undefined) throw new ToolError("Too many certificates");
    const certificate = buildPyModel(CERTIFICATE, { id, amount, source: "certificate" }) as Certificate;
    user.payment_methods.set(id, certificate);
    return `Certificate ${id} added to user ${pyStr(user_id)} with amount ${pyStr(amount)}.`;
  },
});

export const transferToHumanAgents = defineTool({
  name: "transfer_to_human_agents",
  description:
    "Hand the customer over to a human agent with a summary of their issue. Only do this when the customer explicitly asks for a human, or when the policy and tools do not let you resolve the request.",
  kind: "generic",
  parameters: z.object({ summary: z.string().min(1).describe("A short summary of the customer's issue.") }),
  run() {
    return "Transfer successful";
  },
});

export const getFlightStatus = defineTool({
  name: "get_flight_status",
  description:
    "The status of a flight on a date: 'available', 'on time', 'delayed', 'flying', 'landed' or 'cancelled'.",
  kind: "read",
  parameters: z.object({
    flight_number: z.string().min(1).describe("The flight number, such as 'HAT001'."),
    date: dateParameter("The date of the flight, such as '2024-05-01'."),
  }),
  run(db: FlightDb, { flight_number, date }) {
    return getFlightInstance(db, flight_number, date).status;
  },
});
