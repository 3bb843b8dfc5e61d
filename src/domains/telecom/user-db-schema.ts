import { z } from "zod";
import { pyDict } from "../../env/schema-helpers.js";

// The customer's side (τ² `TelecomUserDB`): the phone's settings and state (`device`) and the world
// around it (`surroundings`). Field order is the reference models' order.

export const SimStatusSchema = z.enum(["active", "missing", "locked_pin", "locked_puk"]);
export type SimStatus = z.infer<typeof SimStatusSchema>;

export const NetworkTechnologySchema = z.enum(["none", "2G", "3G", "4G", "5G"]);
export type NetworkTechnology = z.infer<typeof NetworkTechnologySchema>;

export const NETWORK_MODES = ["4g_5g_preferred", "4g_only", "3g_only", "2g_only"] as const;
export const NetworkModePreferenceSchema = z
  .enum(NETWORK_MODES)
  .meta({ id: "NetworkModePreference", title: "NetworkModePreference" });
export type NetworkModePreference = z.infer<typeof NetworkModePreferenceSchema>;

export const SignalStrengthSchema = z.enum(["none", "poor", "fair", "good", "excellent"]);
export type SignalStrength = z.infer<typeof SignalStrengthSchema>;

export const PerformanceLevelSchema = z.enum(["unknown", "poor", "fair", "good", "excellent"]);
export type PerformanceLevel = z.infer<typeof PerformanceLevelSchema>;

export const NetworkStatusSchema = z.enum(["connected", "searching", "no_service", "emergency_only"]);
export type NetworkStatus = z.infer<typeof NetworkStatusSchema>;

export const APN_NAMES = ["internet", "broken"] as const;
export const ApnNameSchema = z.enum(APN_NAMES).meta({ id: "APNNames", title: "APNNames" });

export const DEFAULT_MMSC_URL = "http://mms.carrier.com/mms/wapenc";

/** One access point configuration (τ² `APNSettings`); every field has a default. */
export const ApnSettingsSchema = z
  .strictObject({
    apn_name: ApnNameSchema.default("internet").describe("Which access point the phone uses for data."),
    reset_at_reboot: z
      .boolean()
      .default(false)
      .describe("Whether the settings go back to the defaults at the next restart."),
    mms_apn: z.string().nullable().default("mms").describe("Access point used for picture messages."),
    mmsc_url: z
      .string()
      .nullable()
      .default(DEFAULT_MMSC_URL)
      .describe("Address of the carrier's picture-message centre; MMS fails without it."),
    mms_proxy: z
      .string()
      .nullable()
      .default(null)
      .describe("Proxy for picture messages, if the carrier needs one."),
    mms_port: z.int().nullable().default(null).describe("Port of that proxy."),
  })
  .meta({
    id: "APNSettings",
    title: "APNSettings",
    description: "Access point (APN) configuration of the phone.",
  });
export type ApnSettings = z.infer<typeof ApnSettingsSchema>;

export const VpnDetailsSchema = z.strictObject({
  server_address: z.string().nullable().default(null),
  protocol: z.string().nullable().default(null),
  server_performance: PerformanceLevelSchema.default("unknown"),
});
export type VpnDetails = z.infer<typeof VpnDetailsSchema>;

export const AppPermissionsSchema = z.strictObject({
  sms: z.boolean().default(false),
  storage: z.boolean().default(false),
  phone: z.boolean().default(false),
  network: z.boolean().default(false),
});
export type AppPermissions = z.infer<typeof AppPermissionsSchema>;

export const AppStatusSchema = z.strictObject({
  app_name: z.string(),
  permissions: AppPermissionsSchema.prefault({}),
});
export type AppStatus = z.infer<typeof AppStatusSchema>;

const defaultApps = () =>
  new Map<string, AppStatus>([
    [
      "messaging",
      { app_name: "messaging", permissions: { sms: true, storage: true, phone: true, network: false } },
    ],
    [
      "browser",
      { app_name: "browser", permissions: { sms: false, storage: true, phone: false, network: true } },
    ],
  ]);

/** The phone (τ² `MockPhoneAttributes`). */
export const DeviceStateSchema = z.strictObject({
  sim_card_status: SimStatusSchema.default("active"),
  sim_card_missing: z.boolean().default(false),
  airplane_mode: z.boolean().default(false),
  network_signal_strength: SignalStrengthSchema.default("good"),
  network_technology_connected: NetworkTechnologySchema.default("5G"),
  network_connection_status: NetworkStatusSchema.default("connected"),
  battery_level: z.int().default(80),
  data_enabled: z.boolean().default(true),
  roaming_enabled: z.boolean().default(false),
  network_mode_preference: NetworkModePreferenceSchema.default("4g_5g_preferred"),
  active_apn_settings: ApnSettingsSchema.prefault({}),
  wifi_enabled: z.boolean().default(false),
  wifi_connected: z.boolean().default(false),
  wifi_ssid: z.string().nullable().default(null),
  wifi_signal_strength: SignalStrengthSchema.default("none"),
  wifi_calling_enabled: z.boolean().default(false),
  wifi_calling_mms_over_wifi: z.boolean().default(false),
  data_saver_mode: z.boolean().default(false),
  vpn_enabled_setting: z.boolean().default(false),
  vpn_connected: z.boolean().default(false),
  vpn_details: VpnDetailsSchema.nullable().default(null),
  app_statuses: pyDict(AppStatusSchema).default(defaultApps),
});
export type DeviceState = z.infer<typeof DeviceStateSchema>;

export const PaymentRequestSchema = z.strictObject({
  bill_id: z.string(),
  amount_due: z.number(),
  paid: z.boolean().default(false),
});
export type PaymentRequest = z.infer<typeof PaymentRequestSchema>;

const defaultSignal = () =>
  new Map<string, SignalStrength>([
    ["2G", "poor"],
    ["3G", "fair"],
    ["4G", "good"],
    ["5G", "excellent"],
  ]);

/** Where the customer is (τ² `UserSurroundings`); the carrier side keeps part of it in sync. */
export const SurroundingsSchema = z.strictObject({
  name: z.string().nullable().default(null),
  phone_number: z.string().nullable().default(null),
  is_abroad: z.boolean().default(false),
  roaming_allowed: z.boolean().default(false),
  signal_strength: pyDict(SignalStrengthSchema).default(defaultSignal),
  mobile_data_usage_exceeded: z.boolean().default(false),
  line_active: z.boolean().default(true),
  payment_request: PaymentRequestSchema.nullable().default(null),
});
export type Surroundings = z.infer<typeof SurroundingsSchema>;

export const TelecomUserDbSchema = z.strictObject({
  device: DeviceStateSchema.prefault({}),
  surroundings: SurroundingsSchema.prefault({}),
});
export type TelecomUserDb = z.infer<typeof TelecomUserDbSchema>;
