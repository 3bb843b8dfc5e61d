import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { canonicalDbText } from "../../env/db-hash.js";
import { pyShapeOf } from "../../python/py-shape.js";
import { DeviceSchema, LineSchema } from "./db-schema.js";

describe("telecom dates", () => {
  it("accept TOML date values and print them as pydantic's str() would", () => {
    const raw = parseToml(`
      [device]
      device_id = "D1"
      device_type = "phone"
      model = "X"
      is_esim_capable = true
      activation_date = 2025-01-20T14:30:00
      last_esim_transfer_date = 2025-01-20T09:30:00.250Z
      [line]
      line_id = "L1"
      phone_number = "555"
      plan_id = "P1"
      contract_end_date = 2026-12-31
    `) as { device: unknown; line: unknown };
    const device = DeviceSchema.parse(raw.device);
    const line = LineSchema.parse(raw.line);
    expect(device.activation_date).toBe("2025-01-20T14:30:00");
    expect(line.contract_end_date).toBe("2026-12-31");
    const text = canonicalDbText(device, pyShapeOf(DeviceSchema));
    expect(text).toContain('"activation_date": "2025-01-20 14:30:00"');
    expect(text).toContain('"last_esim_transfer_date": "2025-01-20 09:30:00.250000+00:00"');
    expect(canonicalDbText(line, pyShapeOf(LineSchema))).toContain('"contract_end_date": "2026-12-31"');
  });

  it("accept the same dates written as strings", () => {
    const device = DeviceSchema.parse({
      device_id: "D1",
      device_type: "phone",
      model: "X",
      is_esim_capable: true,
      activation_date: "2025-01-20T14:30:00",
    });
    expect(device.activation_date).toBe("2025-01-20T14:30:00");
    expect(() =>
      LineSchema.parse({ line_id: "L", phone_number: "5", plan_id: "P", contract_end_date: "31/12/2026" }),
    ).toThrow();
  });
});
