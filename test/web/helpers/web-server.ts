import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { goldAgent } from "../../../src/agents/gold-agent.js";
import { builtinDomains } from "../../../src/domains/registry.js";
import type { AnyDomain } from "../../../src/env/domain.js";
import { DomainData } from "../../../src/formats/tau2/domain-data.js";
import { createServer } from "../../../src/server/create-server.js";
import type { ServerDeps } from "../../../src/server/server-deps.js";
import { attachVoicePlayground, type VoicePlaygroundDeps } from "../../../src/server/voice-playground.js";
import { tau2DataDir } from "../../../src/testing/tau2-fixtures.js";
import { goldUser } from "../../../src/users/gold-user.js";
import { WEB_DIST } from "./browser.js";

// Parsed domain data, shared by every server of a test file (a restarted server parses nothing again).
const parsed = new Map<string, DomainData>();
export function sharedDomainData(domain: AnyDomain, dataDir: string): DomainData {
  let data = parsed.get(domain.name);
  if (!data) parsed.set(domain.name, (data = new DomainData(domain, dataDir)));
  return data;
}

/** The web app served on 127.0.0.1 with the keyless scripted participants, unless `deps` says otherwise. */
export interface WebServer {
  url: string;
  port: number;
  /** Stop as a crash would: stop listening and cut every open connection (event streams included). */
  kill(): Promise<void>;
  /** Serve again on the same port, with a new app (a new process, as far as the browser can tell). */
  restart(deps?: Partial<ServerDeps>): Promise<void>;
  /** Cut every open connection but keep serving (a network blip). */
  dropConnections(): void;
}

function appOf(deps: Partial<ServerDeps>) {
  return createServer({
    domains: builtinDomains,
    dataDir: tau2DataDir(),
    loadDomainData: sharedDomainData,
    participants: {
      agents: ["scripted:gold"],
      users: ["scripted:gold"],
      agentFor: () => goldAgent,
      customerFor: () => goldUser,
    },
    webRoot: WEB_DIST,
    ...deps,
  });
}

function listen(
  deps: Partial<ServerDeps>,
  port: number,
  voice: Partial<VoicePlaygroundDeps> = {},
): Promise<Server> {
  const app = appOf(deps);
  return new Promise<Server>((resolve) => {
    const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, () => resolve(server as Server));
    // The playground's voice calls (keyless: the scripted demo), as `passk serve` attaches them.
    attachVoicePlayground(server as Server, {
      domains: builtinDomains,
      dataDir: tau2DataDir(),
      loadDomainData: sharedDomainData,
      env: {},
      ...voice,
    });
  });
}

/** `voice`: the voice playground's deps besides the keyless defaults (e.g. a cascaded agent on mocks). */
export async function startWebServer(
  deps: Partial<ServerDeps> = {},
  voice: Partial<VoicePlaygroundDeps> = {},
): Promise<WebServer> {
  let server = await listen(deps, 0, voice);
  const port = (server.address() as AddressInfo).port;
  // The first page load parses every domain: do it now, not inside a test's timeout.
  await fetch(`http://127.0.0.1:${port}/api/info`);
  const kill = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    kill,
    restart: async (next = deps) => {
      server = await listen(next, port, voice);
    },
    dropConnections: () => server.closeAllConnections(),
  };
}
