// The sample game server as a library: what e2e/test/example-game-server.test.ts runs in-process.
export { ConfigError, type GameServerConfig, readConfig } from "./config.js";
export { type Figures, formatFigures } from "./figures.js";
export { GameServer, type GameServerOptions } from "./game-server.js";
export { jsonLineLogger, type Logger, silentLogger } from "./logger.js";
