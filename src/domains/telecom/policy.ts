import type { ReadDataFile } from "../../env/domain.js";

/**
 * The telecom agent's policy: the main (customer service) policy followed by the technical support
 * policy, each in its own tag. Tech support comes as a manual (`telecom`) or as a workflow
 * (`telecom-workflow`); solo mode uses the solo variants where the data has them.
 */
export function telecomPolicy(mainFile: string, techSupportFile: string): (read: ReadDataFile) => string {
  return (read) =>
    `<main_policy>\n${read(mainFile)}\n</main_policy>\n` +
    `<tech_support_policy>\n${read(techSupportFile)}\n</tech_support_policy>`;
}
