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
      "Download the official τ²-bench data files of a pinned upstream commit, verified by git blob hash",
    )
    .option(
      "--ref <commit>",
      "tau2-bench commit to download (files are hash-verified for the pinned one)",
      OFFICIAL_COMMIT,
    )
    .option("--dest <dir>", "where to put the data (default: $PASSK_DATA_DIR, else the per-user data dir)")
    .option("--base-url <url>", "raw file server", DEFAULT_DATA_BASE_URL)
    .action(async (options: { ref: string; dest?: string; baseUrl: string }) => {
      const dest = options.dest ?? context.env.PASSK_DATA_DIR ?? defaultDataDir(context.env);
      const result = await pullOfficialData({
        dest,
        ref: options.ref,
        baseUrl: options.baseUrl,
        onFile: ({ path, status }) =>
          println(context, `${status === "downloaded" ? "downloaded" : "up to date"}  ${path}`),
      });
      println(
        context,
        `${result.downloaded.length} downloaded, ${result.upToDate.length} already up to date → ${dest}`,
      );
      if (options.ref !== OFFICIAL_COMMIT)
        println(context, `note: --ref ${options.ref} is not the pinned commit; files were not hash-verified`);
    });
}
