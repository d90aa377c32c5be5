#!/usr/bin/env node
// The sample game server from the command line: configured by the environment (README.md), it runs
// until MATCHES matches are completed (or until Ctrl-C when MATCHES is 0), then prints its figures.
import { ConfigError, readConfig } from "./config.js";
import { formatFigures } from "./figures.js";
import { GameServer } from "./game-server.js";
import { jsonLineLogger } from "./logger.js";

async function main(): Promise<void> {
  const config = readConfig();
  const server = new GameServer(config, { logger: jsonLineLogger });
  await server.start();
  const progress = setInterval(() => jsonLineLogger.info("progress", { ...server.figures() }), 5000);
  const interrupted = new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await Promise.race([
    config.matches > 0 ? server.whenCompleted(config.matches) : new Promise(() => {}),
    interrupted,
  ]);
  clearInterval(progress);
  const figures = await server.stop();
  console.log(formatFigures(figures));
  // A run that lost matches or saw duplicates is a failed run, for a script that checks the exit code.
  if (figures.failures > 0 || figures.duplicates > 0) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
