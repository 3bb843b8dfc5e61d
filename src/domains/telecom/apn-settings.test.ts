import { describe, expect, it } from "vitest";
import { parseApnSettings } from "./apn-settings.js";

describe("APN settings from a dict", () => {
  it("fills defaults like the reference model", () => {
    expect(parseApnSettings({ mmsc_url: null })).toEqual({
      apn_name: "internet",
      reset_at_reboot: false,
      mms_apn: "mms",
      mmsc_url: null,
      mms_proxy: null,
      mms_port: null,
    });
  });

  it("fails with pydantic's text", () => {
    // τ²'s bad_calls fixture telecom_bad_20.
    expect(() => parseApnSettings({ apn_name: "bogus" })).toThrow(
      "1 validation error for APNSettings\napn_name\n  Input should be 'internet' or 'broken' [type=enum, input_value='bogus', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/enum",
    );
    expect(() => parseApnSettings({ mms_port: "x", colour: 1 })).toThrow(
      /^2 validation errors for APNSettings\nmms_port\n.*\[type=int_parsing, input_value='x', input_type=str\][\s\S]*\ncolour\n {2}Extra inputs are not permitted \[type=extra_forbidden, input_value=1, input_type=int\]/,
    );
  });
});
