import { pyRound } from "../../python/py-round.js";
import type {
  DeviceState,
  NetworkModePreference,
  NetworkTechnology,
  SignalStrength,
  SimStatus,
  TelecomUserDb,
} from "./user-db-schema.js";

/**
 * The simulated phone: what the customer's settings and surroundings imply for service, mobile data,
 * MMS and the status bar. Every function reads (or, for `searchNetwork`, updates) the user database
 * and nothing else, so the rules can be read top to bottom.
 */

/** The SIM as the phone sees it: a SIM that is out of its slot reads as missing. */
export function simStatus(device: DeviceState): SimStatus {
  return device.sim_card_missing ? "missing" : device.sim_card_status;
}

/** Which technology each network mode connects with (4G/5G preferred falls back to 4G without 5G). */
const MODE_TECHNOLOGY: Record<Exclude<NetworkModePreference, "4g_5g_preferred">, NetworkTechnology> = {
  "4g_only": "4G",
  "3g_only": "3G",
  "2g_only": "2G",
};

/**
 * A network search: the phone (re)connects according to its SIM, network mode and the signal around
 * it. No service with a missing or locked SIM, in airplane mode, with a broken APN, or when the
 * carrier has the line inactive.
 */
export function searchNetwork(db: TelecomUserDb): void {
  const { device, surroundings } = db;
  const signalOf = (technology: NetworkTechnology): SignalStrength =>
    surroundings.signal_strength.get(technology) ?? "none";
  const noService = () => {
    device.network_connection_status = "no_service";
    device.network_technology_connected = "none";
    device.network_signal_strength = "none";
  };

  if (simStatus(device) === "active") {
    device.network_connection_status = "connected";
    const mode = device.network_mode_preference;
    let technology: NetworkTechnology;
    if (mode === "4g_5g_preferred") technology = signalOf("5G") === "none" ? "4G" : "5G";
    else technology = MODE_TECHNOLOGY[mode] ?? "4G";
    device.network_technology_connected = technology;
    device.network_signal_strength = signalOf(technology);
  } else {
    noService();
  }
  if (device.airplane_mode) noService();
  if (device.active_apn_settings.apn_name === "broken") noService();
  if (!surroundings.line_active) noService();
}

/**
 * Whether mobile data works: radio on with signal and service, roaming allowed on both the phone and
 * the line when abroad, data switched on, and the data allowance not used up.
 */
export function mobileDataWorking(db: TelecomUserDb): boolean {
  const { device, surroundings } = db;
  if (device.airplane_mode || device.network_signal_strength === "none") return false;
  if (device.network_connection_status === "no_service") return false;
  if (surroundings.is_abroad && (!device.roaming_enabled || !surroundings.roaming_allowed)) return false;
  if (!device.data_enabled) return false;
  return !surroundings.mobile_data_usage_exceeded;
}

/**
 * Whether the messaging app can send MMS: mobile data works on 3G or better, MMS is not routed over
 * Wi-Fi calling (the carrier does not support it), the MMSC address is set, and the messaging app may
 * use SMS and storage.
 */
export function canSendMms(db: TelecomUserDb): boolean {
  const { device } = db;
  if (!mobileDataWorking(db)) return false;
  if (device.network_technology_connected === "2G") return false;
  if (device.wifi_calling_enabled && device.wifi_calling_mms_over_wifi) return false;
  if (device.active_apn_settings.mmsc_url === null) return false;
  const messaging = device.app_statuses.get("messaging");
  if (!messaging) return false;
  return messaging.permissions.storage && messaging.permissions.sms;
}

/** Download speed range (Mbps) per technology; the test reports the middle of the range. */
const SPEED_RANGE: Record<NetworkTechnology, readonly [number, number]> = {
  "2G": [0.1, 0.4],
  "3G": [1.0, 5.0],
  "4G": [10.0, 100.0],
  "5G": [50.0, 500.0],
  none: [0.0, 0.0],
};

/** Share of that speed a signal strength delivers. */
const SIGNAL_FACTOR: Record<SignalStrength, number> = {
  poor: 0.2,
  fair: 0.5,
  good: 0.8,
  excellent: 1.0,
  none: 0.0,
};

export type SpeedDescription = "Very Poor" | "Poor" | "Fair" | "Good" | "Excellent";

/**
 * A speed test over mobile data: `speed` is null without a working data connection. A VPN whose
 * server performs poorly keeps a tenth of the speed; data saver a fifth.
 */
export function speedTest(
  db: TelecomUserDb,
): { speed: number; description: SpeedDescription } | { speed: null; description: "No Connection" } {
  if (!mobileDataWorking(db)) return { speed: null, description: "No Connection" };
  const { device } = db;
  let factor = device.vpn_connected && device.vpn_details?.server_performance === "poor" ? 0.1 : 1.0;
  if (device.data_saver_mode) factor *= 0.2;
  const [low, high] = SPEED_RANGE[device.network_technology_connected] ?? [0.0, 0.0];
  // Same operation order as the reference, so the floats round identically.
  const speed = pyRound(
    ((low + high) / 2.0) * (SIGNAL_FACTOR[device.network_signal_strength] ?? 0.0) * factor,
    2,
  );
  const description: SpeedDescription =
    speed < 1 ? "Very Poor" : speed < 5 ? "Poor" : speed < 25 ? "Fair" : speed < 100 ? "Good" : "Excellent";
  return { speed, description };
}

const SIGNAL_ICON: Record<SignalStrength, string> = {
  none: "📵 No Signal",
  poor: "📶¹ Poor",
  fair: "📶² Fair",
  good: "📶³ Good",
  excellent: "📶⁴ Excellent",
};

/** The status bar line, e.g. `📶³ Good | 5G | 📱 Data Enabled | 🔋 80%`. */
export function statusBar(device: DeviceState): string {
  const parts: string[] = [];
  if (device.airplane_mode) {
    parts.push("✈️ Airplane Mode");
  } else {
    parts.push(SIGNAL_ICON[device.network_signal_strength] ?? SIGNAL_ICON.none);
    const connected = device.network_technology_connected !== "none";
    if (connected) parts.push(device.network_technology_connected);
    if (device.data_enabled && connected) {
      parts.push("📱 Data Enabled");
      if (device.data_saver_mode) parts.push("🔽 Data Saver");
    } else {
      parts.push("📵 Data Disabled");
    }
  }
  if (device.wifi_enabled && device.wifi_connected) {
    parts.push(device.wifi_ssid ? `📡 Connected to ${device.wifi_ssid}` : "📡 Enabled");
  }
  if (device.vpn_connected) parts.push("🔒 VPN Connected");
  parts.push(`🔋 ${device.battery_level}%`);
  return parts.join(" | ");
}

/** A tool's message followed by the status bar, as most phone actions answer. */
export function withStatusBar(message: string, device: DeviceState): string {
  return `${message}\nStatus Bar: ${statusBar(device)}`;
}
