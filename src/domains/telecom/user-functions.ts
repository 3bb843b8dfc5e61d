import type { EnvFunction } from "../../env/tool.js";
import { canSendMms, mobileDataWorking, searchNetwork, simStatus, speedTest } from "./phone.js";
import { flipAirplaneMode, flipDataSaver, flipMobileData, flipRoaming, connectVpnOf } from "./user-tools.js";
import { NetworkStatusSchema, type AppPermissions, type TelecomUserDb } from "./user-db-schema.js";

/**
 * The phone-side functions that are not tools: task initialization puts the phone into a broken
 * state with these, and env assertions check the repaired state. Names and texts are the
 * reference's (`TelecomUserTools`).
 */
type Args = Record<string, unknown>;

/** The reference checks its break helpers with `assert`; a failed check is a broken task. */
function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`AssertionError: ${what}`);
}

/** Flip a switch until it has the wanted state (at most twice), as the reference's `turn_*` helpers do. */
function turn(flip: (db: TelecomUserDb) => boolean, db: TelecomUserDb, on: boolean): void {
  if (flip(db) !== on) flip(db);
}

const helpers: Record<string, (db: TelecomUserDb, args: Args) => unknown> = {
  set_user_info(db, { name, phone_number }) {
    db.surroundings.name = name as string;
    db.surroundings.phone_number = phone_number as string;
    return null;
  },
  set_user_location(db, { abroad }) {
    db.surroundings.is_abroad = abroad as boolean;
    return null;
  },
  simulate_network_search(db) {
    searchNetwork(db);
    return null;
  },
  turn_airplane_mode_on(db) {
    turn(flipAirplaneMode, db, true);
    return "Airplane Mode is now ON.";
  },
  turn_airplane_mode_off(db) {
    turn(flipAirplaneMode, db, false);
    return "Airplane Mode is now OFF.";
  },
  unseat_sim_card(db) {
    db.device.sim_card_missing = true;
    searchNetwork(db);
    check(simStatus(db.device) === "missing", "the SIM card reads as missing");
    return "SIM card un-seated successfully.";
  },
  lock_sim_card(db, { mode }) {
    if (mode === "pin") db.device.sim_card_status = "locked_pin";
    else if (mode === "puk") db.device.sim_card_status = "locked_puk";
    searchNetwork(db);
    return `SIM card locked successfully in ${String(mode)} mode.`;
  },
  turn_data_on(db) {
    // Unlike the toggle, no network search.
    db.device.data_enabled = true;
    return "Data connection restored.";
  },
  turn_data_off(db) {
    turn(flipMobileData, db, false);
    return "Data connection broken.";
  },
  turn_roaming_on(db) {
    turn(flipRoaming, db, true);
    return "Data Roaming is now ON.";
  },
  turn_roaming_off(db) {
    turn(flipRoaming, db, false);
    return "Data Roaming is now OFF.";
  },
  turn_data_saver_mode_on(db) {
    turn(flipDataSaver, db, true);
    return "Data Saver Mode is now ON.";
  },
  turn_data_saver_mode_off(db) {
    turn(flipDataSaver, db, false);
    return "Data Saver Mode is now OFF.";
  },
  break_apn_settings(db) {
    db.device.active_apn_settings.apn_name = "broken";
    searchNetwork(db);
    check(
      db.device.network_connection_status === "no_service",
      "a broken APN leaves the phone without service",
    );
    return "APN settings broken. Please call reset_apn_settings() to fix.";
  },
  break_apn_mms_setting(db) {
    db.device.active_apn_settings.mmsc_url = null;
    check(!canSendMms(db), "MMS fails without an MMSC address");
    return "APN MMS setting broken. Please call reset_apn_settings() to fix.";
  },
  set_wifi_calling(db, { enabled, mms_over_wifi }) {
    db.device.wifi_calling_enabled = enabled as boolean;
    let message = `Wi-Fi Calling is now ${enabled ? "ON" : "OFF"}.`;
    if (mms_over_wifi !== undefined && mms_over_wifi !== null) {
      db.device.wifi_calling_mms_over_wifi = mms_over_wifi as boolean;
      message += `\nMMS over Wi-Fi is now ${mms_over_wifi ? "ON" : "OFF"}.`;
    }
    return message;
  },
  break_vpn(db) {
    connectVpnOf(db.device);
    if (!db.device.vpn_details) throw new Error("'NoneType' object has no attribute 'server_performance'");
    db.device.vpn_details.server_performance = "poor";
    return "VPN connection broken.";
  },
  remove_app_permission(db, { app_name, permission }) {
    const app = db.device.app_statuses.get(app_name as string);
    const name = String(permission).toLowerCase();
    if (!app) return [false, `App '${String(app_name)}' not found. Cannot remove permission.`];
    if (!Object.hasOwn(app.permissions, name)) {
      return [false, `Permission '${name}' not tracked for app '${String(app_name)}'.`];
    }
    app.permissions[name as keyof AppPermissions] = false;
    return [true, `Permission '${name}' removed from app '${String(app_name)}'.`];
  },

  // --- env assertions ---
  assert_airplane_mode_status: (db, { expected_status }) => db.device.airplane_mode === expected_status,
  assert_service_status(db, { expected_status }) {
    const status = NetworkStatusSchema.safeParse(expected_status);
    if (!status.success) throw new Error(`'${String(expected_status)}' is not a valid NetworkStatus`);
    return db.device.network_connection_status === status.data;
  },
  assert_mobile_data_status: (db, { expected_status }) => mobileDataWorking(db) === expected_status,
  assert_mobile_roaming_status: (db, { expected_status }) => db.device.roaming_enabled === expected_status,
  assert_mobile_data_saver_mode_status: (db, { expected_status }) =>
    db.device.data_saver_mode === expected_status,
  assert_internet_speed(db, { expected_speed, expected_desc }) {
    const { speed, description } = speedTest(db);
    const fast = (speed ?? 0.0) >= (expected_speed as number);
    if (expected_desc === undefined || expected_desc === null) return fast;
    return fast && description.toLowerCase() === String(expected_desc).toLowerCase();
  },
  assert_internet_not_excellent: (db) => speedTest(db).description.toLowerCase() !== "excellent",
  assert_can_send_mms: (db, { expected_status }) => canSendMms(db) === expected_status,
  assert_mobile_data_usage_exceeded: (db, { expected_status }) =>
    db.surroundings.mobile_data_usage_exceeded === expected_status,
};

export const userFunctions: Readonly<Record<string, EnvFunction<TelecomUserDb>>> = helpers;
