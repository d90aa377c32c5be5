import { MAX_MATCH_PLAYERS } from "@arena/contracts";
import { commonConfigProperties, loadConfig, portConfigProperty } from "@arena/service-kit";
import { DEFAULT_WARM_UP_TICKETS } from "./warm-up.js";

/** The matchmaker's whole configuration; a self-hoster needs only LICENSE_KEY (and LICENSE_URL). */
export const configSchema = {
  type: "object",
  required: ["LICENSE_KEY"],
  properties: {
    ...commonConfigProperties,
    ...portConfigProperty(8000),
    LICENSE_KEY: { type: "string", minLength: 1, description: "Your license key (lk_…)" },
    LICENSE_URL: { type: "string", pattern: "^https?://", default: "http://127.0.0.1:8082" },
    LICENSE_REFRESH_SECONDS: { type: "integer", minimum: 1, default: 300 },
    LICENSE_GRACE_SECONDS: { type: "integer", minimum: 0, default: 86400 },
    MAX_BODY_BYTES: { type: "integer", minimum: 1024, default: 64 * 1024 * 1024 },
    MAX_TICKETS: { type: "integer", minimum: 2, default: 200_000 },
    // The default is the contracts' bound of hosted games, so stats' games always fit.
    MAX_MATCH_PLAYERS: { type: "integer", minimum: 2, maximum: 10_000, default: MAX_MATCH_PLAYERS },
    CLOCK_SKEW_SECONDS: { type: "integer", minimum: 0, default: 60 },
    // Tickets per synthetic queue of the start-up warm-up (warm-up.ts); 0 skips it. The default is
    // the queue size the first real requests are measured at; a smaller one readies sooner.
    WARM_UP_TICKETS: { type: "integer", minimum: 0, maximum: 100_000, default: DEFAULT_WARM_UP_TICKETS },
  },
} as const;

export type MatchmakerConfig = ReturnType<typeof loadMatchmakerConfig>;

export function loadMatchmakerConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(configSchema, env);
}
