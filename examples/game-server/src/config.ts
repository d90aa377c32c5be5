/** Everything the sample game server is told, read from the environment by `readConfig`. */
export interface GameServerConfig {
  /** The gateway's base URL (REST and the Cognito-style login at `/auth`). */
  url: string;
  /** The gateway's WebSocket URL (`ws://…/ws`); derived from `url` when not given. */
  wsUrl: string;
  clientId: string;
  username: string;
  password: string;
  /** Given: log in with `USER_SRP_AUTH` (the password never leaves the process); else `USER_PASSWORD_AUTH`. */
  userPoolId?: string;
  gameId: string;
  numTeams: number;
  numPlayersPerTeam: number;
  /** Stop queueing once this many matches are completed or under way (0: run until stopped). */
  matches: number;
  /** How long one match "plays", in milliseconds. */
  playMs: number;
  /** Chance (0–1) that a player drops out of a running match and a backfill is asked for. */
  dropRate: number;
  /** Waiting players the server keeps in the queue at most. */
  queueTarget: number;
  /** Matches this server hosts at once: it queues players only for the seats it has free. */
  capacity: number;
  /** Seconds a suggestion may stay unconfirmed before the platform fails it and requeues its players. */
  confirmationTimeout: number;
  /** How long a match waits past its play time for a backfill replacement before it ends without one. */
  backfillWaitMs: number;
  /** How long a call is retried while the platform cannot answer (a gateway restarting) before it is given up. */
  persistMs: number;
}

interface Setting {
  env: string;
  /** Absent: required. */
  fallback?: string;
}

const SETTINGS = {
  url: { env: "ARENA_URL", fallback: "http://127.0.0.1:8080" },
  wsUrl: { env: "ARENA_WS_URL", fallback: "" },
  clientId: { env: "ARENA_CLIENT_ID" },
  username: { env: "ARENA_USERNAME" },
  password: { env: "ARENA_PASSWORD" },
  userPoolId: { env: "ARENA_USER_POOL_ID", fallback: "" },
  gameId: { env: "ARENA_GAME_ID", fallback: "sample-2v2" },
  numTeams: { env: "TEAMS", fallback: "2" },
  numPlayersPerTeam: { env: "PLAYERS_PER_TEAM", fallback: "2" },
  matches: { env: "MATCHES", fallback: "0" },
  playMs: { env: "PLAY_MS", fallback: "2000" },
  dropRate: { env: "DROP_RATE", fallback: "0.1" },
  queueTarget: { env: "QUEUE_TARGET", fallback: "40" },
  capacity: { env: "CAPACITY", fallback: "10" },
  confirmationTimeout: { env: "CONFIRMATION_TIMEOUT", fallback: "10" },
  backfillWaitMs: { env: "BACKFILL_WAIT_MS", fallback: "3000" },
  persistMs: { env: "PERSIST_MS", fallback: "60000" },
} satisfies Record<keyof GameServerConfig, Setting>;

type NumberKey = {
  [K in keyof GameServerConfig]-?: GameServerConfig[K] extends number ? K : never;
}[keyof GameServerConfig];

/** Bounds of each number (the API's own where there is one: a match holds at most 1000 players). */
const NUMBERS: Record<NumberKey, { min: number; max: number; integer: boolean }> = {
  numTeams: { min: 1, max: 1000, integer: true },
  numPlayersPerTeam: { min: 1, max: 1000, integer: true },
  matches: { min: 0, max: Number.MAX_SAFE_INTEGER, integer: true },
  playMs: { min: 0, max: 3_600_000, integer: true },
  dropRate: { min: 0, max: 1, integer: false },
  queueTarget: { min: 1, max: 1000, integer: true },
  capacity: { min: 1, max: 10_000, integer: true },
  confirmationTimeout: { min: 1, max: 3600, integer: true },
  backfillWaitMs: { min: 0, max: 3_600_000, integer: true },
  persistMs: { min: 0, max: 3_600_000, integer: true },
};

/** A configuration that cannot run: every problem at once, so one start-up shows them all. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join("; ")}`);
    this.name = "ConfigError";
  }
}

/** Reads the configuration from `env` (process.env by default); throws a ConfigError listing every problem. */
export function readConfig(env: Record<string, string | undefined> = process.env): GameServerConfig {
  const problems: string[] = [];
  const raw = {} as Record<keyof GameServerConfig, string>;
  for (const [key, setting] of Object.entries(SETTINGS) as Array<[keyof GameServerConfig, Setting]>) {
    const value = env[setting.env]?.trim() || setting.fallback;
    if (value === undefined) problems.push(`${setting.env} is required`);
    raw[key] = value ?? "";
  }
  const numbers = {} as Record<NumberKey, number>;
  for (const [key, bounds] of Object.entries(NUMBERS) as Array<[NumberKey, (typeof NUMBERS)[NumberKey]]>) {
    const value = Number(raw[key]);
    const name = SETTINGS[key].env;
    if (raw[key] === "" || !Number.isFinite(value)) problems.push(`${name} must be a number`);
    else if (bounds.integer && !Number.isInteger(value)) problems.push(`${name} must be an integer`);
    else if (value < bounds.min || value > bounds.max)
      problems.push(`${name} must be between ${bounds.min} and ${bounds.max}`);
    numbers[key] = value;
  }
  if (numbers.numTeams * numbers.numPlayersPerTeam > 1000)
    problems.push("TEAMS × PLAYERS_PER_TEAM must be at most 1000");
  if (numbers.numTeams === 1 && numbers.numPlayersPerTeam < 2)
    problems.push("a game of one team needs PLAYERS_PER_TEAM ≥ 2");
  for (const key of ["url", "wsUrl"] as const) {
    if (raw[key] !== "" && !URL.canParse(raw[key])) problems.push(`${SETTINGS[key].env} must be a URL`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const url = raw.url.replace(/\/+$/, "");
  return {
    url,
    wsUrl: raw.wsUrl || `${url.replace(/^http/, "ws")}/ws`,
    clientId: raw.clientId,
    username: raw.username,
    password: raw.password,
    ...(raw.userPoolId ? { userPoolId: raw.userPoolId } : {}),
    gameId: raw.gameId,
    ...numbers,
  };
}
