import { describe, expect, it } from "vitest";
import { canSendMms, mobileDataWorking, searchNetwork, speedTest, statusBar } from "./phone.js";
import { pyFixed } from "../../python/py-round.js";
import { TelecomUserDbSchema, type TelecomUserDb } from "./user-db-schema.js";

/** A phone as user_db.toml describes it (defaults everywhere), John Smith at home. */
function phone(change: (db: TelecomUserDb) => void = () => {}): TelecomUserDb {
  const db = TelecomUserDbSchema.parse({});
  db.surroundings.phone_number = "555-123-2002";
  change(db);
  return db;
}

describe("the simulated phone", () => {
  it("prints the status bar as the reference does", () => {
    // Strings from τ²'s fixtures (bad_calls check_status_bar, gold init steps).
    expect(statusBar(phone().device)).toBe("📶³ Good | 5G | 📱 Data Enabled | 🔋 80%");
    expect(statusBar(phone((db) => (db.device.airplane_mode = true)).device)).toBe(
      "✈️ Airplane Mode | 🔋 80%",
    );
    const searched = phone((db) => {
      db.device.data_saver_mode = true;
      db.device.vpn_connected = true;
      searchNetwork(db);
    });
    expect(statusBar(searched.device)).toBe(
      "📶⁴ Excellent | 5G | 📱 Data Enabled | 🔽 Data Saver | 🔒 VPN Connected | 🔋 80%",
    );
    const noSim = phone((db) => {
      db.device.sim_card_missing = true;
      searchNetwork(db);
    });
    expect(statusBar(noSim.device)).toBe("📵 No Signal | 📵 Data Disabled | 🔋 80%");
  });

  it("connects by network mode to the signal around it", () => {
    const twoG = phone((db) => {
      db.device.network_mode_preference = "2g_only";
      searchNetwork(db);
    });
    expect([twoG.device.network_technology_connected, twoG.device.network_signal_strength]).toEqual([
      "2G",
      "poor",
    ]);
    const no5g = phone((db) => {
      db.surroundings.signal_strength.set("5G", "none");
      searchNetwork(db);
    });
    expect([no5g.device.network_technology_connected, no5g.device.network_signal_strength]).toEqual([
      "4G",
      "good",
    ]);
    const inactive = phone((db) => {
      db.surroundings.line_active = false;
      searchNetwork(db);
    });
    expect(inactive.device.network_connection_status).toBe("no_service");
  });

  it("measures speed as the middle of the technology's range times signal and slow-downs", () => {
    // 5G: (50 + 500) / 2 = 275 Mbps; good signal 0.8 → 220 (τ²'s run_speed_test fixture).
    expect(speedTest(phone())).toEqual({ speed: 220, description: "Excellent" });
    // Data saver keeps a fifth: 275 × 0.2 = 55.
    const saver = phone((db) => {
      searchNetwork(db);
      db.device.data_saver_mode = true;
    });
    expect(speedTest(saver)).toEqual({ speed: 55, description: "Good" });
    // 2G poor with a poorly performing VPN: 0.25 × 0.2 × 0.1 = 0.005 → 0.01.
    const slow = phone((db) => {
      db.device.network_mode_preference = "2g_only";
      searchNetwork(db);
      db.device.vpn_connected = true;
      db.device.vpn_details = { server_address: null, protocol: null, server_performance: "poor" };
    });
    expect(speedTest(slow)).toEqual({ speed: 0.01, description: "Very Poor" });
    const abroad = phone((db) => (db.surroundings.is_abroad = true));
    expect(speedTest(abroad)).toEqual({ speed: null, description: "No Connection" });
  });

  it("needs roaming on both sides abroad, and data within the allowance", () => {
    const abroad = (device: boolean, line: boolean) =>
      mobileDataWorking(
        phone((db) => {
          db.surroundings.is_abroad = true;
          db.device.roaming_enabled = device;
          db.surroundings.roaming_allowed = line;
        }),
      );
    expect([abroad(true, true), abroad(true, false), abroad(false, true)]).toEqual([true, false, false]);
    expect(mobileDataWorking(phone((db) => (db.surroundings.mobile_data_usage_exceeded = true)))).toBe(false);
  });

  it("sends MMS only with data on 3G or better, an MMSC address, no MMS over Wi-Fi, and SMS+storage", () => {
    expect(canSendMms(phone())).toBe(true);
    expect(canSendMms(phone((db) => (db.device.active_apn_settings.mmsc_url = null)))).toBe(false);
    expect(canSendMms(phone((db) => (db.device.network_technology_connected = "2G")))).toBe(false);
    expect(
      canSendMms(
        phone((db) => {
          db.device.wifi_calling_enabled = true;
          db.device.wifi_calling_mms_over_wifi = true;
        }),
      ),
    ).toBe(false);
    expect(
      canSendMms(phone((db) => (db.device.app_statuses.get("messaging")!.permissions.sms = false))),
    ).toBe(false);
  });
});

describe("Python number formatting", () => {
  it("rounds exact ties to even, like f'{x:.2f}'", () => {
    expect(
      ["0.125", "0.375", "2.5", "3.5", "1.005", "220"].map((x, i) =>
        pyFixed(Number(x), i < 2 ? 2 : i < 4 ? 0 : 2),
      ),
    ).toEqual(["0.12", "0.38", "2", "4", "1.00", "220.00"]);
  });
});
