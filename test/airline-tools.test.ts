import { beforeAll, describe, expect, it } from "vitest";
import type { World } from "../src/env/world.js";
import { DomainData } from "../src/formats/tau2/domain-data.js";
import { tau2DataDir } from "../src/testing/tau2-fixtures.js";
import type { DirectFlight, FlightDb } from "../src/domains/airline/db-schema.js";
import { airlineDomain } from "../src/domains/airline/index.js";

// Behaviour the conformance fixtures do not reach. Expected texts for lenient mode are what the
// reference toolkit (τ² a2c0247, pydantic 2.13) returned for the same calls on the official DB.

describe("airline tools", () => {
  let data: DomainData<FlightDb>;
  beforeAll(() => {
    data = new DomainData(airlineDomain, tau2DataDir());
  });
  const call = (world: World<FlightDb>, name: string, args: Record<string, unknown>) =>
    world.callTool({ name, arguments: args, requestor: "assistant" });

  describe("lenient mode fails like the reference on arguments of the wrong type", () => {
    const cases: Array<[string, string, Record<string, unknown>, string]> = [
      [
        "a flight list mixing objects and strings",
        "update_reservation_flights",
        {
          reservation_id: "T1QOBS",
          cabin: "economy",
          flights: [{ flight_number: "HAT060", date: "2024-05-28" }, "HAT001"],
          payment_id: "credit_card_9875103",
        },
        "Error: 'dict' object has no attribute 'flight_number'",
      ],
      [
        "a cabin that does not exist, when booking",
        "book_reservation",
        {
          user_id: "harper_lopez_1489",
          origin: "JFK",
          destination: "MIA",
          flight_type: "one_way",
          cabin: "first",
          flights: [{ flight_number: "HAT060", date: "2024-05-26" }],
          passengers: [{ first_name: "Harper", last_name: "Lopez", dob: "1978-10-24" }],
          payment_methods: [{ payment_id: "credit_card_9875103", amount: 119 }],
          total_baggages: 0,
          nonfree_baggages: 0,
          insurance: "no",
        },
        "Error: 1 validation error for Reservation\ncabin\n  Input should be 'business', 'economy' or 'basic_economy' [type=literal_error, input_value='first', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/literal_error",
      ],
      [
        "a bag count given as text",
        "update_reservation_baggages",
        {
          reservation_id: "T1QOBS",
          total_baggages: 2,
          nonfree_baggages: "2",
          payment_id: "credit_card_9875103",
        },
        "Error: unsupported operand type(s) for -: 'str' and 'int'",
      ],
      [
        "a certificate amount that is not a number",
        "send_certificate",
        { user_id: "harper_lopez_1489", amount: "abc" },
        "Error: 1 validation error for Certificate\namount\n  Input should be a valid number, unable to parse string as a number [type=float_parsing, input_value='abc', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/float_parsing",
      ],
      ["a list as a user id", "get_user_details", { user_id: ["a"] }, "Error: unhashable type: 'list'"],
    ];
    it.each(cases)("%s", (_label, name, args, expected) => {
      const world = data.newWorld({ validation: "lenient" });
      expect(call(world, name, args).content).toBe(expected);
      expect(world.agentDb).toBe(data.agentDb);
    });

    it("stores passengers given as a string, as the reference does", () => {
      const world = data.newWorld({ validation: "lenient" });
      const result = call(world, "update_reservation_passengers", {
        reservation_id: "T1QOBS",
        passengers: "abcd",
      });
      expect(result.content).toContain('"passengers": "abcd", "payment_history"');
      expect(world.hash().agent).toBe("ea308010af03c5a22a74f5cb1ae8d46d35b26a6133d491e5604fea9dd9ef20da");
    });
  });

  describe("strict mode", () => {
    it("names the argument and what was expected", () => {
      const world = data.newWorld();
      const result = call(world, "search_direct_flight", {
        origin: "jfk",
        destination: "SEA",
        date: "2024-05-20",
      });
      expect(result.error).toBe(true);
      expect(result.content).toContain("argument 'origin': expected a three-letter IATA airport code");
      const cabin = call(world, "update_reservation_flights", {
        reservation_id: "T1QOBS",
        cabin: "first",
        flights: [{ flight_number: "HAT060", date: "2024-05-28" }],
        payment_id: "credit_card_9875103",
      });
      expect(cabin.content).toContain("argument 'cabin'");
      expect(cabin.content).toContain('"basic_economy"');
    });
  });

  it("a booking takes seats, spends the gift card and files the reservation", () => {
    const world = data.newWorld();
    // Economy on HAT060 on 2024-05-26 costs 119 with 7 seats left; the gift card holds 69.0.
    const result = call(world, "book_reservation", {
      user_id: "harper_lopez_1489",
      origin: "JFK",
      destination: "MIA",
      flight_type: "one_way",
      cabin: "economy",
      flights: [{ flight_number: "HAT060", date: "2024-05-26" }],
      passengers: [
        { first_name: "Harper", last_name: "Lopez", dob: "1978-10-24" },
        { first_name: "Ann", last_name: "Lee", dob: "1990-01-01" },
      ],
      payment_methods: [
        { payment_id: "gift_card_7854500", amount: 69 },
        { payment_id: "credit_card_9875103", amount: 2 * 119 + 50 - 69 },
      ],
      total_baggages: 1,
      nonfree_baggages: 1,
      insurance: "no",
    });
    expect(result.error).toBe(false);
    expect(result.content).toMatch(
      /^\{"reservation_id": "HATHAT", .*"created_at": "2024-05-15T15:00:00", .*"status": null\}$/,
    );
    const db = world.agentDb;
    expect(db.flights.get("HAT060")!.dates.get("2024-05-26")).toMatchObject({
      available_seats: new Map([
        ["basic_economy", 11],
        ["economy", 5],
        ["business", 17],
      ]),
    });
    const user = db.users.get("harper_lopez_1489")!;
    expect(user.payment_methods.get("gift_card_7854500")).toEqual({
      source: "gift_card",
      id: "gift_card_7854500",
      amount: 0,
    });
    expect(user.reservations.at(-1)).toBe("HATHAT");
    expect(call(world, "get_user_details", { user_id: "harper_lopez_1489" }).content).toContain(
      '"gift_card_7854500": {"source": "gift_card", "id": "gift_card_7854500", "amount": 0.0}',
    );
  });

  it("issues three certificates per world, then refuses", () => {
    const world = data.newWorld();
    const texts = [1, 2, 3, 4].map(
      () => call(world, "send_certificate", { user_id: "mia_li_3668", amount: 100 }).content,
    );
    expect(texts).toEqual([
      "Certificate certificate_3221322 added to user mia_li_3668 with amount 100.",
      "Certificate certificate_3221323 added to user mia_li_3668 with amount 100.",
      "Certificate certificate_3221324 added to user mia_li_3668 with amount 100.",
      "Error: Too many certificates",
    ]);
    expect(call(world, "get_user_details", { user_id: "mia_li_3668" }).content).toContain(
      '"certificate_3221324": {"source": "certificate", "id": "certificate_3221324", "amount": 100.0}',
    );
  });

  it("one-stop search pairs connecting flights, overnight ones on the next day", () => {
    const world = data.newWorld();
    const text = call(world, "search_onestop_flight", {
      origin: "SFO",
      destination: "JFK",
      date: "2024-05-20",
    }).content;
    const pairs = JSON.parse(text) as Array<[DirectFlight, DirectFlight]>;
    // The reference finds 7 connections, 3 of them after an overnight first leg (HAT082).
    expect(pairs).toHaveLength(7);
    for (const [first, second] of pairs) {
      expect([first.origin, first.date, second.destination, second.origin]).toEqual([
        "SFO",
        "2024-05-20",
        "JFK",
        first.destination,
      ]);
      expect(second.scheduled_departure_time_est >= first.scheduled_arrival_time_est).toBe(true);
      expect(second.date).toBe(first.scheduled_arrival_time_est.includes("+1") ? "2024-05-21" : "2024-05-20");
    }
    expect(
      pairs.filter(
        ([first]) => first.flight_number === "HAT082" && first.scheduled_arrival_time_est === "03:00:00+1",
      ),
    ).toHaveLength(3);
  });

  it("reads share the database and writes copy only what they touch", () => {
    const world = data.newWorld();
    call(world, "search_direct_flight", { origin: "JFK", destination: "MIA", date: "2024-05-26" });
    call(world, "get_user_details", { user_id: "mia_li_3668" });
    expect(world.agentDb).toBe(data.agentDb);
    call(world, "cancel_reservation", { reservation_id: "T1QOBS" });
    const after = world.agentDb;
    expect(after).not.toBe(data.agentDb);
    expect(after.flights).toBe(data.agentDb.flights);
    expect(after.users).toBe(data.agentDb.users);
    expect(after.reservations.get("4WQ150")).toBe(data.agentDb.reservations.get("4WQ150"));
    expect(data.agentDb.reservations.get("T1QOBS")!.status).toBeNull();
  });
});
