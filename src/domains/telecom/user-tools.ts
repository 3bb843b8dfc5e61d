import { z } from "zod";
import { pyArgStr } from "../../python/py-float.js";
import { pyFloatRepr } from "../../python/py-json.js";
import { defineTool } from "../../env/tool.js";
import { parseApnSettings } from "./apn-settings.js";
import { canSendMms, searchNetwork, simStatus, speedTest, statusBar, withStatusBar } from "./phone.js";
import { pyFixed } from "../../python/py-round.js";
import { pyRepr } from "../../python/py-values.js";
import {
  ApnSettingsSchema,
  NETWORK_MODES,
  NetworkModePreferenceSchema,
  type AppPermissions,
  type DeviceState,
  type NetworkModePreference,
  type SimStatus,
  type TelecomUserDb,
} from "./user-db-schema.js";

// The customer's phone actions (τ² `TelecomUserTools`), in the order the reference lists them.
// Descriptions speak to the customer: "your phone".

const noArguments = z.object({});

export const checkStatusBar = defineTool({
  name: "check_status_bar",
  description:
    "Show the icons in your phone's status bar: signal strength and network type, whether mobile data is on (or data saver), Wi-Fi, VPN and battery.",
  kind: "read",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    return `Status Bar: ${statusBar(db.device)}`;
  },
});

export const checkNetworkStatus = defineTool({
  name: "check_network_status",
  description:
    "Show how your phone is connected: airplane mode, SIM, cellular connection, signal and network type, mobile data, data roaming and Wi-Fi.",
  kind: "read",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    const device = db.device;
    const yesNo = (on: boolean) => (on ? "Yes" : "No");
    const onOff = (on: boolean) => (on ? "ON" : "OFF");
    const lines = [
      `Airplane Mode: ${onOff(device.airplane_mode)}`,
      `SIM Card Status: ${simStatus(device)}`,
      `Cellular Connection: ${device.network_connection_status}`,
      `Cellular Signal: ${device.network_signal_strength}`,
      `Cellular Network Type: ${device.network_technology_connected}`,
      `Mobile Data Enabled: ${yesNo(device.data_enabled)}`,
      `Data Roaming Enabled: ${yesNo(device.roaming_enabled)}`,
      `Wi-Fi Radio: ${onOff(device.wifi_enabled)}`,
      `Wi-Fi Connected: ${yesNo(device.wifi_connected)}`,
    ];
    if (device.wifi_connected) lines.push(`Connected Wi-Fi Network: ${device.wifi_ssid ?? "None"}`);
    return lines.join("\n");
  },
});

export const checkNetworkModePreference = defineTool({
  name: "check_network_mode_preference",
  description: "Show which kind of cellular network (5G, 4G, 3G, 2G) your phone prefers.",
  kind: "read",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    return `Network Mode Preference: ${db.device.network_mode_preference}`;
  },
});

export const setNetworkModePreference = defineTool({
  name: "set_network_mode_preference",
  description:
    "Choose which kind of cellular network your phone prefers (4G/5G preferred, 4G only, 3G only, 2G only). Faster networks give faster data but may drain the battery sooner. The phone searches for a network again.",
  kind: "write",
  parameters: z.object({
    mode: z.union([NetworkModePreferenceSchema, z.string()]).describe("The network mode to use."),
  }),
  run(db: TelecomUserDb, args) {
    const mode = args.mode as unknown;
    if (typeof mode !== "string" || !(NETWORK_MODES as readonly string[]).includes(mode)) {
      return withStatusBar(
        `Failed to set network mode: '${pyArgStr(args, "mode")}' is not a valid option. Please use one of: ${NETWORK_MODES.join(", ")}`,
        db.device,
      );
    }
    db.device.network_mode_preference = mode as NetworkModePreference;
    searchNetwork(db);
    return withStatusBar(`Preferred Network Mode set to: ${mode}`, db.device);
  },
});

const SPEED_ADVICE: Record<string, string> = {
  "Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
  Poor: "Connection is slow. Web browsing may be sluggish, streaming difficult.",
  Fair: "Connection is okay for web browsing and some standard definition streaming.",
  Good: "Connection is good for most activities, including HD streaming.",
  Excellent: "Connection is very fast.",
};

export const runSpeedTest = defineTool({
  name: "run_speed_test",
  description: "Measure your mobile data download speed and say what it is good enough for.",
  kind: "read",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    const { speed, description } = speedTest(db);
    if (speed === null) return `Speed test failed: ${description}.`;
    return `Speed Test Result: ${pyFixed(speed, 2)} Mbps (${description}). ${SPEED_ADVICE[description] ?? ""}`;
  },
});

/** Flip airplane mode; radios go off (Wi-Fi and VPN disconnect) or come back and search again. */
export function flipAirplaneMode(db: TelecomUserDb): boolean {
  const device = db.device;
  const wasOn = device.airplane_mode;
  device.airplane_mode = !wasOn;
  if (wasOn) {
    device.network_connection_status = "searching";
    if (device.wifi_enabled) disconnectWifi(device);
  } else {
    disconnectWifi(device);
    if (device.vpn_connected) disconnectVpnOf(device);
  }
  searchNetwork(db);
  return device.airplane_mode;
}

function disconnectWifi(device: DeviceState): void {
  device.wifi_connected = false;
  device.wifi_ssid = null;
  device.wifi_signal_strength = "none";
}

export const toggleAirplaneMode = defineTool({
  name: "toggle_airplane_mode",
  description:
    "Turn airplane mode on or off. While it is on, all wireless connections (cellular, Wi-Fi, Bluetooth) are off.",
  kind: "write",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    const on = flipAirplaneMode(db);
    return withStatusBar(`Airplane Mode is now ${on ? "ON" : "OFF"}.`, db.device);
  },
});

const SIM_MESSAGES: Record<SimStatus, string> = {
  active: "Your SIM card is active and working.",
  missing: "No SIM card detected in the phone.",
  locked_pin: "The SIM card is locked with a PIN code.",
  locked_puk: "The SIM card is locked with a PUK code.",
};

export const checkSimStatus = defineTool({
  name: "check_sim_status",
  description: "Check whether your SIM card works: active, missing, or locked by a PIN or PUK code.",
  kind: "read",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    const status = simStatus(db.device);
    return SIM_MESSAGES[status] ?? `Unknown SIM status: ${status}`;
  },
});

export const reseatSimCard = defineTool({
  name: "reseat_sim_card",
  description: "Take the SIM card out and put it back in, which can fix a SIM the phone does not recognise.",
  kind: "write",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    db.device.sim_card_missing = false;
    searchNetwork(db);
    return withStatusBar("SIM card re-seated successfully.", db.device);
  },
});

/** Flip the mobile data switch; the phone searches for a network again. */
export function flipMobileData(db: TelecomUserDb): boolean {
  db.device.data_enabled = !db.device.data_enabled;
  searchNetwork(db);
  return db.device.data_enabled;
}

export const toggleData = defineTool({
  name: "toggle_data",
  description: "Turn mobile data on or off: whether your phone may use the cellular network for internet.",
  kind: "write",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    const on = flipMobileData(db);
    return withStatusBar(`Mobile Data is now ${on ? "ON" : "OFF"}.`, db.device);
  },
});

/** Flip the data roaming setting; the phone searches for a network again. */
export function flipRoaming(db: TelecomUserDb): boolean {
  db.device.roaming_enabled = !db.device.roaming_enabled;
  searchNetwork(db);
  return db.device.roaming_enabled;
}

export const toggleRoaming = defineTool({
  name: "toggle_roaming",
  description: "Turn data roaming on or off: whether your phone may use mobile data on networks abroad.",
  kind: "write",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    const on = flipRoaming(db);
    return withStatusBar(`Data Roaming is now ${on ? "ON" : "OFF"}.`, db.device);
  },
});

export const checkDataRestrictionStatus = defineTool({
  name: "check_data_restriction_status",
  description: "Check whether a data-limiting feature (Data Saver) is on.",
  kind: "read",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    return db.device.data_saver_mode
      ? "Data Saver mode is ON (limits data usage)."
      : "Data Saver mode is OFF.";
  },
});

/** Flip data saver mode (no network search). */
export function flipDataSaver(db: TelecomUserDb): boolean {
  db.device.data_saver_mode = !db.device.data_saver_mode;
  return db.device.data_saver_mode;
}

export const toggleDataSaverMode = defineTool({
  name: "toggle_data_saver_mode",
  description:
    "Turn Data Saver on or off. It reduces how much data the phone uses, which can slow data down.",
  kind: "write",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    const on = flipDataSaver(db);
    return withStatusBar(`Data Saver Mode is now ${on ? "ON" : "OFF"}.`, db.device);
  },
});

export const checkApnSettings = defineTool({
  name: "check_apn_settings",
  description:
    "Show the access point (APN) settings your phone uses for mobile data: the APN name and the MMSC address used for picture messages.",
  kind: "read",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    const apn = db.device.active_apn_settings;
    return `Current APN Name: ${apn.apn_name || "Not Set"}\nMMSC URL (for picture messages): ${apn.mmsc_url || "Not Set"}\n(These are technical settings, usually best left unchanged.)`;
  },
});

export const setApnSettings = defineTool({
  name: "set_apn_settings",
  description:
    "Replace your phone's APN settings; fields left out take their default values. The phone searches for a network again.",
  kind: "write",
  parameters: z.object({
    apn_settings: z
      .union([
        ApnSettingsSchema,
        // The reference also accepts a plain dict, which it then reads as APN settings.
        z.looseObject({}).refine((value) => ApnSettingsSchema.safeParse(value).success, {
          message: "not valid APN settings",
        }),
      ])
      .describe("The new APN settings."),
  }),
  run(db: TelecomUserDb, { apn_settings }) {
    const settings = parseApnSettings(apn_settings);
    db.device.active_apn_settings = settings;
    searchNetwork(db);
    return withStatusBar(`APN settings set to: ${settings.apn_name}`, db.device);
  },
});

export const resetApnSettings = defineTool({
  name: "reset_apn_settings",
  description: "Restore the default APN settings. They take effect at the next restart of the phone.",
  kind: "write",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    db.device.active_apn_settings.reset_at_reboot = true;
    searchNetwork(db);
    return withStatusBar("APN settings will reset at reboot.", db.device);
  },
});

export const checkWifiStatus = defineTool({
  name: "check_wifi_status",
  description: "Check Wi-Fi: whether it is on, which network you are connected to, and the signal strength.",
  kind: "read",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    const device = db.device;
    if (!device.wifi_enabled) return "Wi-Fi is turned OFF.";
    if (device.wifi_connected) {
      return `Wi-Fi is ON and connected to '${device.wifi_ssid ?? "None"}'. Signal strength: ${device.wifi_signal_strength}.`;
    }
    return "Wi-Fi is ON but not connected to any network.";
  },
});

export const toggleWifi = defineTool({
  name: "toggle_wifi",
  description: "Turn the Wi-Fi radio on or off (not possible in airplane mode).",
  kind: "write",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    const device = db.device;
    if (device.airplane_mode) {
      return withStatusBar("Cannot change Wi-Fi settings while Airplane Mode is ON.", device);
    }
    device.wifi_enabled = !device.wifi_enabled;
    if (!device.wifi_enabled) disconnectWifi(device);
    return withStatusBar(`Wi-Fi is now ${device.wifi_enabled ? "ON" : "OFF"}.`, device);
  },
});

export const checkWifiCallingStatus = defineTool({
  name: "check_wifi_calling_status",
  description: "Check whether Wi-Fi Calling (calls over Wi-Fi instead of the cellular network) is on.",
  kind: "read",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    return `Wi-Fi Calling is currently turned ${db.device.wifi_calling_enabled ? "ON" : "OFF"}.`;
  },
});

export const toggleWifiCalling = defineTool({
  name: "toggle_wifi_calling",
  description:
    "Turn Wi-Fi Calling on or off. With it on, calls go over Wi-Fi, which helps where the cellular signal is weak.",
  kind: "write",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    db.device.wifi_calling_enabled = !db.device.wifi_calling_enabled;
    return withStatusBar(`Wi-Fi Calling is now ${db.device.wifi_calling_enabled ? "ON" : "OFF"}.`, db.device);
  },
});

/** Python's repr of the VPN details dict (`model_dump()` keeps the enum member). */
function vpnDetailsRepr(device: DeviceState): string {
  const details = device.vpn_details!;
  const level = details.server_performance;
  return `{'server_address': ${pyRepr(details.server_address)}, 'protocol': ${pyRepr(details.protocol)}, 'server_performance': <PerformanceLevel.${level.toUpperCase()}: ${pyRepr(level)}>}`;
}

export const checkVpnStatus = defineTool({
  name: "check_vpn_status",
  description: "Check whether a VPN is on and connected, with its connection details.",
  kind: "read",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    const device = db.device;
    if (device.vpn_connected) {
      return device.vpn_details
        ? `VPN is ON and connected. Details: ${vpnDetailsRepr(device)}`
        : "VPN is ON and connected (no specific details available).";
    }
    if (device.vpn_enabled_setting) return "VPN is turned ON in settings, but currently not connected.";
    return "VPN is turned OFF.";
  },
});

/** Connect the VPN with the default server; false when it was connected already. */
export function connectVpnOf(device: DeviceState): boolean {
  if (device.vpn_connected) return false;
  device.vpn_connected = true;
  device.vpn_details = {
    server_address: "192.168.1.1",
    protocol: "OpenVPN",
    server_performance: "excellent",
  };
  return true;
}

export const connectVpn = defineTool({
  name: "connect_vpn",
  description: "Connect to your VPN.",
  kind: "write",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    if (!connectVpnOf(db.device)) return "VPN already connected.";
    return withStatusBar("VPN connected successfully.", db.device);
  },
});

/** Disconnect the VPN; false when none was connected. */
export function disconnectVpnOf(device: DeviceState): boolean {
  if (!device.vpn_connected) return false;
  device.vpn_connected = false;
  device.vpn_details = null;
  return true;
}

export const disconnectVpn = defineTool({
  name: "disconnect_vpn",
  description:
    "Disconnect the active VPN, so traffic no longer goes through a VPN server (which can change speed or what content you can reach).",
  kind: "write",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    const done = disconnectVpnOf(db.device);
    return withStatusBar(
      done ? "VPN disconnected successfully." : "No active VPN connection to disconnect.",
      db.device,
    );
  },
});

export const checkInstalledApps = defineTool({
  name: "check_installed_apps",
  description: "List the apps installed on your phone.",
  kind: "read",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    return `The following apps are installed on the phone: ${[...db.device.app_statuses.keys()].join(", ")}`;
  },
});

/** Names of the permissions an app holds, as the reference words them. */
function grantedPermissions(permissions: AppPermissions): string[] {
  return (Object.keys(permissions) as Array<keyof AppPermissions>)
    .filter((name) => permissions[name])
    .map((name) => name.replace(/_/g, " ").toLowerCase());
}

export const checkAppStatus = defineTool({
  name: "check_app_status",
  description: "Show the details of one app, including which permissions it has.",
  kind: "read",
  parameters: z.object({ app_name: z.string().describe("Name of the app, e.g. messaging.") }),
  run(db: TelecomUserDb, { app_name }) {
    const app = db.device.app_statuses.get(app_name);
    if (!app) return `App '${app_name}' not found on this phone.`;
    const granted = grantedPermissions(app.permissions);
    const lines = [`Status for App: ${app_name}`];
    if (granted.length === 0) lines.push(" - Permissions: None granted.");
    else lines.push(" - Permissions Granted:", ...granted.map((p) => `   - ${p}`));
    return lines.join("\n");
  },
});

export const checkAppPermissions = defineTool({
  name: "check_app_permissions",
  description: "List the permissions an app currently has (such as SMS, storage, phone or network access).",
  kind: "read",
  parameters: z.object({ app_name: z.string().describe("Name of the app, e.g. messaging.") }),
  run(db: TelecomUserDb, { app_name }) {
    const app = db.device.app_statuses.get(app_name);
    if (!app) return `App '${app_name}' not found on this phone.`;
    const granted = grantedPermissions(app.permissions);
    if (granted.length === 0) return `App '${app_name}' currently has no permissions granted.`;
    return `App '${app_name}' has permission for: ${granted.join(", ")}.`;
  },
});

export const grantAppPermission = defineTool({
  name: "grant_app_permission",
  description: "Give an app a permission it needs to work, such as access to SMS or storage.",
  kind: "write",
  parameters: z.object({
    app_name: z.string().describe("Name of the app, e.g. messaging."),
    permission: z.string().describe("The permission to grant, in lower case, e.g. sms."),
  }),
  run(db: TelecomUserDb, args) {
    const app_name = args.app_name;
    const permission = args.permission.toLowerCase();
    const app = db.device.app_statuses.get(app_name);
    let message: string;
    if (!app) {
      message = `Error. App '${app_name}' not found. Cannot grant permission.`;
    } else if (!Object.hasOwn(app.permissions, permission)) {
      message = `Error. Permission '${permission}' not tracked for app '${app_name}', available permissions: ${pyRepr(Object.keys(app.permissions))}`;
    } else {
      app.permissions[permission as keyof AppPermissions] = true;
      message = `Success. Permission '${permission}' granted to app '${app_name}'.`;
    }
    return withStatusBar(message, db.device);
  },
});

export const canSendMmsTool = defineTool({
  name: "can_send_mms",
  description: "Check whether your messaging app can send MMS (picture) messages.",
  kind: "read",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    return canSendMms(db)
      ? "Your messaging app can send MMS messages."
      : "Your messaging app cannot send MMS messages.";
  },
});

export const rebootDevice = defineTool({
  name: "reboot_device",
  description:
    "Restart your phone. This clears many temporary glitches: services and connections start afresh, and pending APN resets are applied.",
  kind: "write",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    const lines: string[] = [];
    if (db.device.active_apn_settings.reset_at_reboot) {
      lines.push("Resetting APN settings...");
      db.device.active_apn_settings = ApnSettingsSchema.parse({});
    }
    lines.push("Restarting network services...");
    db.device.network_connection_status = "searching";
    searchNetwork(db);
    return withStatusBar(lines.join("\n"), db.device);
  },
});

export const checkPaymentRequest = defineTool({
  name: "check_payment_request",
  description: "Check whether the agent has sent you a request to pay a bill.",
  kind: "read",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    const request = db.surroundings.payment_request;
    if (!request) return "No payment request has been made.";
    return `You have a payment request for bill ${request.bill_id} of ${pyFloatRepr(request.amount_due)} USD.`;
  },
});

export const makePayment = defineTool({
  name: "make_payment",
  description: "Pay the bill the agent asked you to pay.",
  kind: "write",
  parameters: noArguments,
  run(db: TelecomUserDb) {
    const request = db.surroundings.payment_request;
    if (!request) return "You do not have a payment request.";
    request.paid = true;
    return `Payment of ${pyFloatRepr(request.amount_due)} USD has been made for bill ${request.bill_id}.`;
  },
});

export const userTools = [
  checkStatusBar,
  checkNetworkStatus,
  checkNetworkModePreference,
  setNetworkModePreference,
  runSpeedTest,
  toggleAirplaneMode,
  checkSimStatus,
  reseatSimCard,
  toggleData,
  toggleRoaming,
  checkDataRestrictionStatus,
  toggleDataSaverMode,
  checkApnSettings,
  setApnSettings,
  resetApnSettings,
  checkWifiStatus,
  toggleWifi,
  checkWifiCallingStatus,
  toggleWifiCalling,
  checkVpnStatus,
  connectVpn,
  disconnectVpn,
  checkInstalledApps,
  checkAppStatus,
  checkAppPermissions,
  grantAppPermission,
  canSendMmsTool,
  rebootDevice,
  checkPaymentRequest,
  makePayment,
];
