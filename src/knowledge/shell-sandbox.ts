import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { ConfigError } from "../core/errors.js";
import { compareCodePoints, type KnowledgeBase } from "./knowledge-base.js";
import { makeDirectory } from "../core/make-directory.js";

// The `shell` tool of τ²'s terminal_use, terminal_use_write and alltools configs: the knowledge base
// exported as files into a per-conversation folder, and every command run there through Anthropic's
// sandbox runtime (`srt`, the npm package @anthropic-ai/sandbox-runtime 0.0.23, over bubblewrap, ripgrep
// and socat), which forbids the network and, unless writes are allowed, every write.

/** The system programs srt needs on Linux. */
export const SANDBOX_BINARIES = ["bwrap", "rg", "socat"] as const;

/** How to install what the shell needs, for messages and the README. */
export const SANDBOX_INSTALL_HINT = "apt-get install bubblewrap ripgrep socat";

/** Seconds a command may run before it is killed (the reference's 30). */
export const SHELL_TIMEOUT_SECONDS = 30;

const SANDBOX_USER = "kb_user";
const SANDBOX_GROUP = "kb_group";
const SANDBOX_DATE = "Jan  1 00:00";

let binariesChecked: string[] | undefined;

/** The system programs srt needs that are not on PATH (empty when the shell can run). */
export function missingSandboxBinaries(): string[] {
  binariesChecked ??= SANDBOX_BINARIES.filter(
    (binary) => spawnSync("/bin/sh", ["-c", `command -v ${binary}`], { stdio: "ignore" }).status !== 0,
  );
  return binariesChecked;
}

/** Why the shell cannot run on this machine, or undefined when it can. */
export function sandboxUnavailable(): string | undefined {
  const missing = missingSandboxBinaries();
  if (missing.length === 0) return undefined;
  return `the shell sandbox needs ${missing.join(", ")} on PATH (install: ${SANDBOX_INSTALL_HINT})`;
}

/** The srt command-line program shipped by the dependency. */
function srtCli(): string {
  const main = createRequire(import.meta.url).resolve("@anthropic-ai/sandbox-runtime");
  return path.join(path.dirname(main), "cli.js");
}

/** A document id as the reference turns it into a file name. */
export function sandboxFileName(id: string): string {
  const replaced = id.replaceAll("/", "_").replaceAll("\\", "_").replaceAll("..", "_");
  const kept = Array.from(replaced, (c) => (/^[\p{L}\p{N}._-]$/u.test(c) ? c : "_"));
  return kept.slice(0, 255).join("");
}

/** The files of the exported knowledge base (`doc_<id>.md` and `INDEX.md`), name → content. */
export function exportedFiles(kb: KnowledgeBase): Map<string, string> {
  const files = new Map<string, string>();
  for (const document of kb.documents)
    files.set(`${sandboxFileName(document.id)}.md`, `# ${document.title}\n\n${document.content}`);
  const sorted = [...kb.documents].sort((a, b) => compareCodePoints(a.id, b.id));
  const index = [
    "# Knowledge Base Index\n\n",
    `**Total documents:** ${kb.documents.length}\n\n`,
    "## Documents\n\n",
    ...sorted.map((document) => `- **${sandboxFileName(document.id)}.md** - ${document.title}\n`),
  ];
  files.set("INDEX.md", index.join(""));
  return files;
}

/**
 * Why a command is refused before it runs, as the reference words it: `..`, `~`, `$HOME` or an absolute
 * path outside quotes. Best effort: the sandbox itself is what stops writes and the network.
 */
export function escapePattern(command: string): string | undefined {
  const stripped = command.replace(/'[^']*'/g, '""').replace(/"[^"]*"/g, '""');
  if (stripped.includes("..")) return "..";
  if (/(?:^|[\s;|&])(\/[a-zA-Z])/.test(stripped)) {
    const full = /(?:^|[\s;|&])(\/[a-zA-Z][^\s;|&]*)/.exec(stripped);
    if (full) return `absolute path: ${full[1]}`;
  }
  if (stripped.trim().startsWith("/")) return "absolute path at start";
  if (stripped.includes("~")) return "~";
  if (stripped.includes("$HOME") || stripped.includes("${HOME}")) return "$HOME";
  return undefined;
}

/**
 * The account whose home folder the sandbox's output hides: the login name `env` gives (`LOGNAME`,
 * `USER`, `LNAME`, `USERNAME`, as Python's `getpass.getuser` reads them), else the system's.
 */
export function sandboxAccount(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const named = env.LOGNAME || env.USER || env.LNAME || env.USERNAME;
  if (named) return named;
  try {
    return os.userInfo().username;
  } catch {
    return undefined;
  }
}

const LS_LINE = /^([dlrwxst@-]+\s+\d+\s+)(\S+)\s+(\S+)\s+(\d+)\s+(\w{3}\s+\d+\s+[\d:]+)\s+(.*)$/gm;

/**
 * Output with the machine's owner, group, dates (ls -l) and `account`'s home folder replaced by fixed
 * values.
 */
export function sanitizeOutput(output: string, account: string | undefined): string {
  if (output === "") return output;
  let result = output.replace(
    LS_LINE,
    (_m, permsLinks: string, _u, _g, size: string, _d, name: string) =>
      `${permsLinks}${SANDBOX_USER}  ${SANDBOX_GROUP}  ${size} ${SANDBOX_DATE} ${name}`,
  );
  if (account) {
    const escaped = account.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    result = result.replace(new RegExp(`/(?:Users|home)/${escaped}(?=/|$)`, "gm"), "/home/kb_user");
  }
  return result;
}

/** What the agent reads for a command's exit code, stdout and stderr (the reference's wording). */
export function shellToolOutput(command: string, code: number, stdout: string, stderr: string): string {
  if (code !== 0) {
    if (code === 1 && command.includes("grep") && stderr === "") return "No matches found.";
    if (stderr !== "") return `Error (exit code ${code}): ${stderr}`;
    return `Command failed with exit code ${code}`;
  }
  return stdout === "" ? "(no output)" : stdout;
}

/** The folder holding every sandbox of every passk process on this machine. */
export function sandboxRoot(): string {
  return path.join(os.tmpdir(), "passk-shell");
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the sandboxes of passk processes that are gone (killed with -9, crashed): their folders are
 * named `<pid>-<id>`. Returns how many were removed.
 */
export function removeStaleSandboxes(root: string = sandboxRoot()): number {
  let removed = 0;
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const pid = Number(/^(\d+)-/.exec(entry)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
    rmSync(path.join(root, entry), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

const live = new Set<ShellSandbox>();
let exitHookInstalled = false;
let staleSwept = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const sandbox of live) sandbox.close();
  });
}

/** How many sandboxes this process holds open. */
export function openSandboxCount(): number {
  return live.size;
}

export interface ShellSandboxOptions {
  /** terminal_use_write: the command may create and change files in the knowledge-base folder. */
  allowWrites: boolean;
  /** The account whose home folder the output hides (`sandboxAccount`); none: only `ls -l`'s fields are. */
  account?: string | undefined;
  /** Where the sandboxes live; default `$TMPDIR/passk-shell`. */
  root?: string;
  timeoutSeconds?: number;
}

/**
 * One conversation's sandbox: its own copy of the exported knowledge base, and srt settings allowing
 * no network and writes only into that copy (and only when `allowWrites`). Close it when the conversation
 * ends; the process closes what is left at exit, and the next process removes what a killed one left.
 */
export class ShellSandbox {
  readonly dir: string;
  readonly kbDir: string;
  readonly allowWrites: boolean;
  readonly #settings: string;
  readonly #timeoutSeconds: number;
  readonly #account: string | undefined;
  #closed = false;

  constructor(kb: KnowledgeBase, options: ShellSandboxOptions) {
    const unavailable = sandboxUnavailable();
    if (unavailable) throw new ConfigError(`cannot run the shell tool: ${unavailable}.`);
    const root = options.root ?? sandboxRoot();
    if (!staleSwept) {
      staleSwept = true;
      removeStaleSandboxes(root);
    }
    installExitHook();
    this.allowWrites = options.allowWrites;
    this.#account = options.account;
    this.#timeoutSeconds = options.timeoutSeconds ?? SHELL_TIMEOUT_SECONDS;
    this.dir = path.join(root, `${process.pid}-${randomBytes(4).toString("hex")}`);
    this.kbDir = path.join(this.dir, "knowledge_base");
    makeDirectory(this.kbDir);
    live.add(this);
    for (const [name, content] of exportedFiles(kb)) writeFileSync(path.join(this.kbDir, name), content);
    this.#settings = path.join(this.dir, "srt-settings.json");
    const settings = {
      network: { allowedDomains: [], deniedDomains: [] },
      filesystem: {
        denyRead: ["~/.ssh", "~/.aws", "~/.config", "~/.gnupg", "/etc/passwd", "/etc/shadow"],
        allowWrite: this.allowWrites ? [this.kbDir] : [],
        denyWrite: [this.#settings],
      },
    };
    writeFileSync(this.#settings, JSON.stringify(settings, null, 2));
  }

  /** Runs a command in the knowledge-base folder: exit code, stdout and stderr (sanitised). */
  async exec(
    command: string,
    signal?: AbortSignal,
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    if (this.#closed) throw new Error("this shell sandbox is closed");
    const blocked = escapePattern(command);
    if (blocked)
      return {
        code: 1,
        stdout: "",
        stderr: `Error: Command blocked - contains '${blocked}' which could escape the sandbox`,
      };
    const child = spawn(process.execPath, [srtCli(), "--settings", this.#settings, command], {
      cwd: this.kbDir,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    let timedOut = false;
    const kill = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, this.#timeoutSeconds * 1000);
    signal?.addEventListener("abort", kill, { once: true });
    const code = await new Promise<number>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (status) => resolve(status ?? 1));
    }).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", kill);
    });
    if (timedOut)
      return { code: 124, stdout: "", stderr: `Command timed out after ${this.#timeoutSeconds} seconds` };
    const stdout = sanitizeOutput(Buffer.concat(out).toString("utf8"), this.#account);
    const stderr = sanitizeOutput(Buffer.concat(err).toString("utf8"), this.#account);
    if ((stdout + stderr).toLowerCase().includes("sandbox dependencies are not available"))
      throw new ConfigError(
        `the sandbox runtime reports missing system programs (${stderr.trim().slice(0, 400)}); install: ${SANDBOX_INSTALL_HINT}`,
      );
    return { code, stdout, stderr };
  }

  /** The `shell` tool's text for a command. */
  async run(command: string, signal?: AbortSignal): Promise<string> {
    const { code, stdout, stderr } = await this.exec(command, signal);
    return shellToolOutput(command, code, stdout, stderr);
  }

  /** Removes the sandbox's folder. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    live.delete(this);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
