import { useEffect, useRef, useState } from "react";

type Device = Record<string, unknown>;

const SIGNAL_BARS: Record<string, number> = { none: 0, poor: 1, fair: 2, good: 3, excellent: 4 };

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function Bars(props: { level: number; label: string }) {
  return (
    <span className="bars" role="img" aria-label={props.label}>
      {[1, 2, 3, 4].map((n) => (
        <span key={n} className={n <= props.level ? "bar on" : "bar"} style={{ height: `${n * 3 + 2}px` }} />
      ))}
    </span>
  );
}

const SETTINGS: ReadonlyArray<[string, string, (d: Device) => string]> = [
  ["airplane_mode", "Airplane mode", (d) => (d.airplane_mode ? "On" : "Off")],
  ["data_enabled", "Mobile data", (d) => (d.data_enabled ? "On" : "Off")],
  ["roaming_enabled", "Data roaming", (d) => (d.roaming_enabled ? "On" : "Off")],
  [
    "network_mode_preference",
    "Network mode",
    (d) => String(d.network_mode_preference ?? "—").replace(/_/g, " "),
  ],
  [
    "wifi_enabled",
    "Wi-Fi",
    (d) =>
      d.wifi_enabled
        ? d.wifi_connected
          ? `Connected${d.wifi_ssid ? ` (${String(d.wifi_ssid)})` : ""}`
          : "On"
        : "Off",
  ],
  ["wifi_calling_enabled", "Wi-Fi calling", (d) => (d.wifi_calling_enabled ? "On" : "Off")],
  ["data_saver_mode", "Data saver", (d) => (d.data_saver_mode ? "On" : "Off")],
  [
    "vpn_enabled_setting",
    "VPN",
    (d) => (d.vpn_enabled_setting ? (d.vpn_connected ? "Connected" : "On") : "Off"),
  ],
  [
    "sim_card_status",
    "SIM",
    (d) => (d.sim_card_missing ? "missing" : String(d.sim_card_status ?? "—").replace(/_/g, " ")),
  ],
  ["active_apn_settings", "APN", (d) => String(asRecord(d.active_apn_settings)?.apn_name ?? "—")],
];

/**
 * The customer's phone (telecom): a status bar and the settings screen, drawn from the customer's
 * state as it streams; settings that just changed flash.
 */
export function PhonePanel(props: { state: unknown }) {
  const device = asRecord(asRecord(props.state)?.device);
  const previous = useRef<Device | undefined>(undefined);
  const [changed, setChanged] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => {
    if (!device) return;
    const before = previous.current;
    previous.current = device;
    if (!before) return;
    const keys = new Set(
      Object.keys(device).filter((k) => JSON.stringify(device[k]) !== JSON.stringify(before[k])),
    );
    setChanged(keys);
    const timer = setTimeout(() => setChanged(new Set()), 2500);
    return () => clearTimeout(timer);
  }, [device]);
  if (!device) return null;
  const airplane = Boolean(device.airplane_mode);
  const status = String(device.network_connection_status ?? "");
  const signal = airplane ? 0 : (SIGNAL_BARS[String(device.network_signal_strength)] ?? 0);
  const tech = airplane || status !== "connected" ? "" : String(device.network_technology_connected ?? "");
  const battery = Number(device.battery_level ?? 0);
  return (
    <section className="phone" aria-label="Customer's phone" data-testid="phone">
      <div className="phone-status" data-testid="phone-status">
        <span className="carrier">
          {airplane ? "✈ Airplane" : status === "connected" ? "Carrier" : status.replace(/_/g, " ") || "—"}
        </span>
        <span className="status-icons">
          {!airplane && <Bars level={signal} label={`signal ${String(device.network_signal_strength)}`} />}
          {tech && <span className="tech">{tech}</span>}
          {Boolean(device.data_enabled) && !airplane && <span title="mobile data on">⇅</span>}
          {Boolean(device.wifi_connected) && <span title="Wi-Fi connected">Wi-Fi</span>}
          {Boolean(device.vpn_connected) && <span title="VPN connected">VPN</span>}
          <span className={`battery${battery < 20 ? " low" : ""}`} aria-label={`battery ${battery}%`}>
            {battery}%
          </span>
        </span>
      </div>
      <ul className="phone-settings">
        {SETTINGS.map(([key, label, value]) => (
          <li
            key={key}
            className={
              changed.has(key) || (key === "wifi_enabled" && changed.has("wifi_connected")) ? "flash" : ""
            }
          >
            <span>{label}</span>
            <span className="setting-value">{value(device)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
