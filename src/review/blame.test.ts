import { describe, expect, it } from "vitest";
import { describeBlame, type Review } from "./blame.js";

const review = (culprit: Review["culprit"]): { review: Review } => ({
  review: { culprit, turn: null, reason: "r", source: "check", check: null },
});

describe("describeBlame", () => {
  it("counts the failures of each culprit, agent first, and says none when nothing failed", () => {
    const reviews = ["task", "agent", "undetermined", "agent", "user_simulator"] as const;
    expect(describeBlame(reviews.map(review))).toBe(
      "5 failed simulation(s): agent 2, user_simulator 1, task 1, undetermined 1",
    );
    expect(describeBlame([])).toBe("0 failed simulation(s): none");
  });
});
