import { ToolError } from "../../env/world.js";
import type { Flight, FlightDateStatus, FlightDb, Reservation, User } from "./db-schema.js";
import { pyDictGet, pyStr } from "../../python/py-values.js";

// Lookups shared by the airline tools, with the reference's error texts. Ids are matched exactly: the
// fixtures' reference (commit a2c0247) predates its case-insensitive lookups.

export function getUser(db: FlightDb, userId: unknown): User {
  const user = pyDictGet(db.users, userId);
  if (!user) throw new ToolError(`User ${pyStr(userId)} not found`);
  return user;
}

export function getReservation(db: FlightDb, reservationId: unknown): Reservation {
  const reservation = pyDictGet(db.reservations, reservationId);
  if (!reservation) throw new ToolError(`Reservation ${pyStr(reservationId)} not found`);
  return reservation;
}

export function getFlight(db: FlightDb, flightNumber: unknown): Flight {
  const flight = pyDictGet(db.flights, flightNumber);
  if (!flight) throw new ToolError(`Flight ${pyStr(flightNumber)} not found`);
  return flight;
}

/** A flight's status on one date. */
export function getFlightInstance(db: FlightDb, flightNumber: unknown, date: unknown): FlightDateStatus {
  const flight = getFlight(db, flightNumber);
  const instance = pyDictGet(flight.dates, date);
  if (!instance) throw new ToolError(`Flight ${pyStr(flightNumber)} not found on date ${pyStr(date)}`);
  return instance;
}

/** The next free id of a new reservation: the reference allows three bookings per task. */
export function newReservationId(db: FlightDb): string {
  const id = ["HATHAT", "HATHAU", "HATHAV"].find((candidate) => !db.reservations.has(candidate));
  if (!id) throw new ToolError("Too many reservations");
  return id;
}

/** Fixed ids of issued certificates (three per task), and the fixed "now" of the airline world. */
export const NEW_CERTIFICATE_IDS = ["certificate_3221322", "certificate_3221323", "certificate_3221324"];
export const NOW = "2024-05-15T15:00:00";
