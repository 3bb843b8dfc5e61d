import type { Command } from "commander";
import { defaultDataDir } from "../../formats/tau2/data-dir.js";
import { DEFAULT_DATA_BASE_URL, pullOfficialData } from "../../formats/tau2/data-pull.js";
import { OFFICIAL_COMMIT } from "../../formats/tau2/official-manifest.js";
import { println, type CliContext } from "../context.js";

export function registerData(program: Command, context: CliContext): void {
  const data = program.command("data").description("Manage the official τ²-bench data");
  data
    .command("pull")
    .description(
      "Download the official τ²-bench data files of a pinned upstream commit, and the upstream source files whose prompt and tool texts the τ² protocol shows models, and the τ-voice interaction-metrics golden set, verified by git blob hash",
    )
    .option(
      "--ref <commit>",
      "tau2-bench commit to download (files are hash-verified for the pinned one)",
      OFFICIAL_COMMIT,
    )
    .option("--dest <dir>", "where to put the data (default: $PASSK_DATA_DIR, else the per-user data dir)")
    .option("--base-url <url>", "raw file server", DEFAULT_DATA_BASE_URL)
    .option(
      "--upstream <dir>",
      "a copy of the upstream source files to verify instead of downloading them (default: $PASSK_TAU2_UPSTREAM)",
    )
    .action(async (options: { ref: string; dest?: string; baseUrl: string; upstream?: string }) => {
      const dest = options.dest ?? context.env.PASSK_DATA_DIR ?? defaultDataDir(context.env);
      const upstreamDir = options.upstream ?? (context.env.PASSK_TAU2_UPSTREAM || undefined);
      const result = await pullOfficialData({
        dest,
        ref: options.ref,
        baseUrl: options.baseUrl,
        ...(upstreamDir !== undefined ? { upstreamDir } : {}),
        onFile: ({ path, status }) =>
          println(context, `${status === "downloaded" ? "downloaded" : "up to date"}  ${path}`),
        onWarning: (message) => context.stderr.write(`${message}\n`),
      });
      println(
        context,
        `${result.downloaded.length} downloaded, ${result.upToDate.length} already up to date → ${dest}`,
      );
      if (upstreamDir !== undefined)
        println(context, `upstream source files: verified in place at ${upstreamDir}`);
      if (options.ref !== OFFICIAL_COMMIT)
        println(context, `note: --ref ${options.ref} is not the pinned commit; files were not hash-verified`);
    });
}
