import { z } from "zod";
import { defineTool } from "../../env/tool.js";
import { ToolError } from "../../env/world.js";
import {
  ReservationSchema,
  type FlightDateStatusAvailable,
  type FlightDb,
  type Passenger,
  type Payment,
  type Reservation,
  type ReservationFlight,
  type User,
} from "./db-schema.js";
import {
  PaymentParameter,
  airportParameter,
  baggageCountParameter,
  cabinParameter,
  flightTypeParameter,
  flightsParameter,
  insuranceParameter,
  passengersParameter,
  paymentIdParameter,
  reservationIdParameter,
  userIdParameter,
} from "./parameters.js";
import { buildPyModel, modelsIfAllDicts, notAModel } from "./py-model.js";
import { pyDictGet, pyIterate, pyNumber, pyOperand, pyRepr } from "../../python/py-values.js";
import { getFlight, getFlightInstance, getReservation, getUser, newReservationId, NOW } from "./records.js";
import { FLIGHT_INFO, PASSENGER, PAYMENT, RESERVATION } from "./reference-models.js";

// The tools that create or change reservations. Their checks run in the reference's order, so that a
// call breaking several rules reports the same first error. Arguments are typed by their schemas, but
// in lenient mode they arrive unchecked, so the code also follows what Python does with wrong types.

/** Seats or price of one cabin; a cabin missing from the dict is Python's KeyError (`'first'`). */
function perCabin(values: ReadonlyMap<string, number>, cabin: unknown): number {
  const value = pyDictGet(values, cabin);
  if (value === undefined) throw new ToolError(pyRepr(cabin), "KeyError");
  return value;
}

/** An available flight date, or the reference's refusal. */
function availableInstance(db: FlightDb, flightNumber: string, date: string): FlightDateStatusAvailable {
  const instance = getFlightInstance(db, flightNumber, date);
  if (instance.status !== "available")
    throw new ToolError(`Flight ${flightNumber} not available on date ${date}`);
  return instance;
}

/**
 * Charge `total` for a change to a reservation: certificates cannot pay for changes and a gift card
 * must cover the amount. Returns the payment line to record (none when the change is free).
 */
function paymentForUpdate(user: User, paymentId: unknown, total: number): Payment | undefined {
  const method = pyDictGet(user.payment_methods, paymentId);
  if (!method) throw new ToolError("Payment method not found");
  if (method.source === "certificate")
    throw new ToolError("Certificate cannot be used to update reservation");
  if (method.source === "gift_card") {
    if (method.amount < total) throw new ToolError("Gift card balance is not enough");
    method.amount -= total;
  }
  if (total === 0) return undefined;
  return buildPyModel(PAYMENT, { payment_id: paymentId, amount: total }) as Payment;
}

export const bookReservation = defineTool({
  name: "book_reservation",
  description:
    "Book a new reservation for a customer: the flights, passengers and cabin, checked baggage, travel insurance, and how it is paid. The payments must add up exactly to the total price.",
  kind: "write",
  parameters: z.object({
    user_id: userIdParameter,
    origin: airportParameter("Airport code where the trip starts, such as 'SFO'."),
    destination: airportParameter("Airport code of the trip's destination, such as 'JFK'."),
    flight_type: flightTypeParameter,
    cabin: cabinParameter,
    flights: flightsParameter("Every flight of the trip, in order, each with its number and date."),
    passengers: passengersParameter(
      "Everyone travelling, each with first name, last name and date of birth.",
    ),
    payment_methods: z
      .array(PaymentParameter)
      .min(1)
      .describe("How the total is paid: saved payment method ids and the amount charged to each."),
    total_baggages: baggageCountParameter("Number of checked bags on the whole reservation."),
    nonfree_baggages: baggageCountParameter("How many of those bags are paid for ($50 each)."),
    insurance: insuranceParameter,
  }),
  returns: ReservationSchema,
  run(db: FlightDb, args) {
    const flights = modelsIfAllDicts(FLIGHT_INFO, pyIterate(args.flights));
    const passengers = modelsIfAllDicts(PASSENGER, pyIterate(args.passengers));
    const payments = modelsIfAllDicts(PAYMENT, pyIterate(args.payment_methods));
    const user = getUser(db, args.user_id);
    const reservation_id = newReservationId(db);
    const reservation = {
      ...buildPyModel(RESERVATION, {
        reservation_id,
        user_id: args.user_id,
        origin: args.origin,
        destination: args.destination,
        flight_type: args.flight_type,
        cabin: args.cabin,
        flights: [],
        passengers: passengers.converted ? passengers.items : args.passengers,
        payment_history: payments.converted ? payments.items : args.payment_methods,
        created_at: NOW,
        total_baggages: args.total_baggages,
        nonfree_baggages: args.nonfree_baggages,
        insurance: args.insurance,
      }),
      status: null,
    } as Reservation;
    const { cabin } = reservation;
    const travellers = reservation.passengers.length;

    let totalPrice = 0;
    const instances: FlightDateStatusAvailable[] = [];
    for (const info of flights.items) {
      if (!flights.converted) throw notAModel(info, "flight_number");
      const { flight_number, date } = info as { flight_number: string; date: string };
      const flight = getFlight(db, flight_number);
      const instance = availableInstance(db, flight_number, date);
      if (perCabin(instance.available_seats, cabin) < travellers)
        throw new ToolError(`Not enough seats on flight ${flight_number}`);
      const price = perCabin(instance.prices, cabin);
      reservation.flights.push({
        flight_number,
        origin: flight.origin,
        destination: flight.destination,
        date,
        price,
      });
      instances.push(instance);
      totalPrice += price * travellers;
    }
    if (reservation.insurance === "yes") totalPrice += 30 * travellers;
    // The raw argument, as the reference computes with it (a numeric string validates but cannot be added).
    totalPrice +=
      50 *
      pyOperand(args.nonfree_baggages, (type) => `unsupported operand type(s) for +=: 'int' and '${type}'`);

    const lines = reservation.payment_history;
    for (const { payment_id, amount } of lines) {
      const method = pyDictGet(user.payment_methods, payment_id);
      if (!method) throw new ToolError(`Payment method ${payment_id} not found`);
      if (method.source !== "credit_card" && method.amount < amount)
        throw new ToolError(`Not enough balance in payment method ${payment_id}`);
    }
    const totalPayment = lines.reduce((sum, line) => sum + line.amount, 0);
    if (totalPayment !== totalPrice)
      throw new ToolError(
        `Payment amount does not add up, total price is ${pyNumber(totalPrice)}, but paid ${pyNumber(totalPayment)}`,
      );

    for (const { payment_id, amount } of lines) {
      const method = user.payment_methods.get(payment_id);
      // The same certificate listed twice: the reference fails on the second use.
      if (!method) throw new ToolError(pyRepr(payment_id), "KeyError");
      if (method.source === "gift_card") method.amount -= amount;
      else if (method.source === "certificate") user.payment_methods.delete(payment_id);
    }
    for (const instance of instances)
      instance.available_seats.set(cabin, perCabin(instance.available_seats, cabin) - travellers);
    db.reservations.set(reservation_id, reservation);
    user.reservations.push(reservation_id);
    return reservation;
  },
});

export const cancelReservation = defineTool({
  name: "cancel_reservation",
  description:
    "Cancel a whole reservation and refund every payment made for it to the original payment method. Check the cancellation rules of the policy first.",
  kind: "write",
  parameters: z.object({ reservation_id: reservationIdParameter }),
  returns: ReservationSchema,
  run(db: FlightDb, { reservation_id }) {
    const reservation = getReservation(db, reservation_id);
    const refunds = reservation.payment_history.map((payment) => ({
      payment_id: payment.payment_id,
      amount: 0 - payment.amount,
    }));
    reservation.payment_history.push(...refunds);
    reservation.status = "cancelled";
    // The reference does not give the seats back to the flights.
    return reservation;
  },
});

export const updateReservationBaggages = defineTool({
  name: "update_reservation_baggages",
  description:
    "Change the number of checked bags on a reservation. Each added paid bag costs $50, charged to the given payment method; removing bags refunds nothing.",
  kind: "write",
  parameters: z.object({
    reservation_id: reservationIdParameter,
    total_baggages: baggageCountParameter("The new total number of checked bags."),
    nonfree_baggages: baggageCountParameter("The new number of paid bags among them."),
    payment_id: paymentIdParameter,
  }),
  returns: ReservationSchema,
  run(db: FlightDb, { reservation_id, total_baggages, nonfree_baggages, payment_id }) {
    const reservation = getReservation(db, reservation_id);
    const user = getUser(db, reservation.user_id);
    const added =
      pyOperand(nonfree_baggages, (type) => `unsupported operand type(s) for -: '${type}' and 'int'`) -
      reservation.nonfree_baggages;
    const payment = paymentForUpdate(user, payment_id, 50 * Math.max(0, added));
    if (payment) reservation.payment_history.push(payment);
    // Stored as given: the reference assigns the arguments without validating them.
    reservation.total_baggages = total_baggages;
    reservation.nonfree_baggages = nonfree_baggages;
    return reservation;
  },
});

export const updateReservationFlights = defineTool({
  name: "update_reservation_flights",
  description:
    "Change the flights or the cabin of a reservation. List every flight of the new itinerary, including the unchanged ones. The fare difference for all passengers is charged to, or refunded to, the given payment method.",
  kind: "write",
  parameters: z.object({
    reservation_id: reservationIdParameter,
    cabin: cabinParameter,
    flights: flightsParameter(
      "The complete new itinerary: every flight of the reservation, changed or not, each with its number and date.",
    ),
    payment_id: paymentIdParameter,
  }),
  returns: ReservationSchema,
  run(db: FlightDb, { reservation_id, cabin, flights: rawFlights, payment_id }) {
    const flights = modelsIfAllDicts(FLIGHT_INFO, pyIterate(rawFlights));
    const reservation = getReservation(db, reservation_id);
    const user = getUser(db, reservation.user_id);
    const travellers = reservation.passengers.length;

    let totalPrice = 0;
    const itinerary: ReservationFlight[] = [];
    for (const info of flights.items) {
      if (!flights.converted) throw notAModel(info, "flight_number");
      const { flight_number, date } = info as { flight_number: string; date: string };
      // A flight kept in the same cabin keeps the price paid for it.
      const kept = reservation.flights.find(
        (flight) =>
          flight.flight_number === flight_number && flight.date === date && cabin === reservation.cabin,
      );
      if (kept) {
        totalPrice += kept.price * travellers;
        itinerary.push({ ...kept });
        continue;
      }
      const flight = getFlight(db, flight_number);
      const instance = availableInstance(db, flight_number, date);
      if (perCabin(instance.available_seats, cabin) < travellers)
        throw new ToolError(`Not enough seats on flight ${flight_number}`);
      const price = perCabin(instance.prices, cabin);
      itinerary.push({ flight_number, origin: flight.origin, destination: flight.destination, date, price });
      totalPrice += price * travellers;
    }
    totalPrice -= reservation.flights.reduce((sum, flight) => sum + flight.price, 0) * travellers;

    const payment = paymentForUpdate(user, payment_id, totalPrice);
    if (payment) reservation.payment_history.push(payment);
    reservation.flights = itinerary;
    reservation.cabin = cabin;
    // Like the reference, seat counts are not updated for changed flights.
    return reservation;
  },
});

export const updateReservationPassengers = defineTool({
  name: "update_reservation_passengers",
  description: "Replace the passenger details of a reservation. The number of passengers cannot change.",
  kind: "write",
  parameters: z.object({
    reservation_id: reservationIdParameter,
    passengers: passengersParameter(
      "All passengers of the reservation, in order, each with first name, last name and date of birth.",
    ),
  }),
  returns: ReservationSchema,
  run(db: FlightDb, { reservation_id, passengers: rawPassengers }) {
    const passengers = modelsIfAllDicts(PASSENGER, pyIterate(rawPassengers));
    const reservation = getReservation(db, reservation_id);
    const given = passengers.converted ? passengers.items : pyIterate(rawPassengers);
    if (given.length !== reservation.passengers.length)
      throw new ToolError("Number of passengers does not match");
    reservation.passengers = (
      passengers.converted ? passengers.items : structuredClone(rawPassengers)
    ) as Passenger[];
    return reservation;
  },
});
