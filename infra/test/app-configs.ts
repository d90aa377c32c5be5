// The apps' own configuration loaders: the manifests' environment is checked against the exact
// schemas the apps validate at start-up (names, types, required variables).
import { gatewayConfigSchema, loadGatewayConfig } from "../../apps/gateway/src/config.js";
import { licenseConfigSchema, loadLicenseConfig } from "../../apps/license/src/config.js";
import {
  loadMatchmakerConfig,
  configSchema as matchmakerConfigSchema,
} from "../../apps/matchmaker/src/config.js";
import { loadStatsConfig, statsConfigSchema } from "../../apps/stats/src/config.js";

export interface AppConfig {
  /** Every variable the app reads. */
  names: ReadonlySet<string>;
  /** Throws the app's ConfigError when it would refuse to start with this environment. */
  load(env: Record<string, string>): unknown;
}

const names = (schema: { properties: object }) => new Set(Object.keys(schema.properties));

export const APP_CONFIGS: Record<string, AppConfig> = {
  license: { names: names(licenseConfigSchema), load: loadLicenseConfig },
  matchmaker: { names: names(matchmakerConfigSchema), load: loadMatchmakerConfig },
  stats: { names: names(statsConfigSchema), load: loadStatsConfig },
  gateway: { names: names(gatewayConfigSchema), load: loadGatewayConfig },
};
