import { spawn } from "node:child_process";
import path from "node:path";

export const REPO_ROOT = path.resolve(import.meta.dirname, "..", "..");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the built `passk` CLI as a user would, with its own environment. */
export function runCli(
  args: string[],
  options: {
    env?: Record<string, string | undefined>;
    input?: string;
    cwd?: string;
    /** Run as this user id (needs root), e.g. to see what a user without permissions sees. */
    uid?: number;
  } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, "bin", "passk.js"), ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, ...options.env },
      ...(options.uid !== undefined ? { uid: options.uid, gid: options.uid } : {}),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

/** The CLI flags that point the agent and the customer at a mock OpenAI-compatible server. */
export function mockModelFlags(baseUrl: string): string[] {
  return [
    "--agent-llm",
    "openai-compatible:mock-agent",
    "--agent-llm-base-url",
    baseUrl,
    "--user-llm",
    "openai-compatible:mock-user",
    "--user-llm-base-url",
    baseUrl,
  ];
}
