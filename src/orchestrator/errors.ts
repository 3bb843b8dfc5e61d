/** The simulated customer failed: its own fault, never the agent's. */
export class UserSimulatorError extends Error {
  constructor(cause: unknown) {
    super(
      typeof cause === "string"
        ? cause
        : `the user simulator failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      ...(typeof cause === "string" ? [] : [{ cause }]),
    );
    this.name = "UserSimulatorError";
  }
}

/** The conversation ran past its wall-clock limit (`--max-sim-seconds`). */
export class SimulationTimeoutError extends Error {
  constructor(readonly limitMs: number) {
    super(
      `the conversation ran past its wall-clock limit of ${limitMs / 1000} s (--max-sim-seconds); ` +
        "it is an infrastructure error, run again on resume",
    );
    this.name = "SimulationTimeoutError";
  }
}
