import { z } from "zod";
import { ConfigError } from "../../core/errors.js";
import { urlCredentials } from "../../llm/redact.js";

/** The protocols a remote agent can speak, by `--agent-llm` prefix. */
export type RemoteAgentProtocol = "a2a" | "http";

/** Is this `--agent-llm` spec a remote agent (`a2a:URL`, `http:URL`)? */
export function isRemoteAgentSpec(spec: string): boolean {
  return spec.startsWith("a2a:") || spec.startsWith("http:");
}

/** `a2a:URL` / `http:URL` read into its protocol and URL, or a ConfigError that shows the form. */
export function parseRemoteAgentSpec(spec: string): { protocol: RemoteAgentProtocol; url: string } {
  const protocol: RemoteAgentProtocol = spec.startsWith("a2a:") ? "a2a" : "http";
  const url = spec.slice(protocol.length + 1);
  // An empty port ("http://host:/") would silently become the scheme's default; a bad one fails only
  // when the first conversation connects.
  const port = /^https?:\/\/(?:[^/?#@]*@)?(?:\[[^\]]*\]|[^/?#:]*):([^/?#@]*)(?=[/?#]|$)/.exec(url)?.[1];
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535))
    throw new ConfigError(
      `--agent-llm "${spec}": "${port}" is not a port (1 to 65535); write the port the agent listens on, e.g. ${protocol}:http://127.0.0.1:9999, or no ":" for the scheme's default`,
    );
  if (!/^https?:\/\//.test(url) || !URL.canParse(url))
    throw new ConfigError(
      `--agent-llm "${spec}": "${url}" is not an http(s) URL; write ${protocol}:<the agent's URL>, e.g. ${protocol}:http://127.0.0.1:9999`,
    );
  if (urlCredentials(url).length > 0)
    throw new ConfigError(
      `--agent-llm "${spec}": the URL carries credentials, which results would record; take them out of the URL and set PASSK_REMOTE_AGENT_TOKEN (sent as "Authorization: Bearer …")`,
    );
  return { protocol, url };
}

/** Where the MCP tool server listens and what URL agents are told, from the environment. */
const RemoteAgentEnvSchema = z.object({
  PASSK_MCP_HOST: z.string().trim().min(1).optional(),
  PASSK_MCP_PORT: z
    .string()
    .regex(/^\d+$/)
    .transform(Number)
    .refine((port) => port <= 65535)
    .optional(),
  PASSK_MCP_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  PASSK_REMOTE_AGENT_TOKEN: z.string().min(1).optional(),
});

/** `PASSK_MCP_*` and `PASSK_REMOTE_AGENT_TOKEN`, checked: a ConfigError names the variable and the fix. */
export function readRemoteAgentEnv(env: Readonly<Record<string, string | undefined>>) {
  const picked = Object.fromEntries(
    Object.keys(RemoteAgentEnvSchema.shape)
      .filter((key) => env[key] !== undefined && env[key] !== "")
      .map((key) => [key, env[key]]),
  );
  const parsed = RemoteAgentEnvSchema.safeParse(picked);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0]);
    const fix: Record<string, string> = {
      PASSK_MCP_HOST: "an address to listen on, e.g. 127.0.0.1 or 0.0.0.0",
      PASSK_MCP_PORT: "a port number from 0 to 65535 (0: any free port)",
      PASSK_MCP_PUBLIC_URL: "the http(s) base URL your agent reaches passk at, e.g. http://10.0.0.5:8931",
      PASSK_REMOTE_AGENT_TOKEN: "the bearer token your agent expects",
    };
    const shown = name === "PASSK_REMOTE_AGENT_TOKEN" ? "" : ` "${env[name]}"`;
    throw new ConfigError(`${name}${shown} is not valid; set it to ${fix[name] ?? "a valid value"}`);
  }
  const config = parsed.data;
  const host = config.PASSK_MCP_HOST;
  if (config.PASSK_MCP_PUBLIC_URL === undefined && (host === "0.0.0.0" || host === "::"))
    throw new ConfigError(
      `PASSK_MCP_HOST=${host} listens on every interface, so passk cannot tell your agent its address; set PASSK_MCP_PUBLIC_URL to the URL the agent reaches passk at, e.g. http://10.0.0.5:8931 (with PASSK_MCP_PORT=8931)`,
    );
  if (config.PASSK_MCP_PUBLIC_URL !== undefined && !config.PASSK_MCP_PORT)
    throw new ConfigError(
      `PASSK_MCP_PUBLIC_URL needs a fixed PASSK_MCP_PORT, the port it forwards to (a free port chosen at run time could not be in it); e.g. PASSK_MCP_PORT=8931`,
    );
  return config;
}
