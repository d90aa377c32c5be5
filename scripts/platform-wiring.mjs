// How the platform is wired: its apps, where each listens, and the environment each one gets from
// the platform's addresses and secrets. `npm start` (scripts/start.mjs), the end-to-end platform
// (e2e/src/platform.ts) and the benchmarks (bench/src/bench-platform.ts) start the apps from this
// one description, so a new setting is one edit here. Plain JavaScript because scripts/start.mjs
// runs before anything is built; the types are in platform-wiring.d.mts. e2e/test/wiring.test.ts
// checks it against each app's config schema and against the Dockerfile's per-app stages.

/** The apps in start order: each one's dependencies come before it. */
export const APPS = Object.freeze(["license", "matchmaker", "stats", "gateway"]);

/** Where each app listens on a platform without offset (also its config's and its image's PORT). */
export const BASE_PORTS = Object.freeze({ matchmaker: 8000, gateway: 8080, stats: 8081, license: 8082 });

/** The apps with a PostgreSQL database of their own, migrated before they start. */
export const DATABASE_APPS = Object.freeze(["license", "stats", "gateway"]);

/**
 * Node.js flags each app runs with (the image's NODE_OPTIONS). The matchmaker's larger young
 * generation: a 10k-ticket request allocates tens of MB of short-lived objects, and the default
 * semi-space makes V8 scavenge several times per request.
 */
export const NODE_FLAGS = Object.freeze({
  license: Object.freeze([]),
  matchmaker: Object.freeze(["--max-semi-space-size=64"]),
  stats: Object.freeze([]),
  gateway: Object.freeze([]),
});

/** Every app's port with `offset` added: a second platform runs beside the first. */
export function platformPorts(offset = 0) {
  return Object.fromEntries(APPS.map((app) => [app, BASE_PORTS[app] + offset]));
}

/** Where an app of a platform on this machine is reached. */
export function localUrl(port) {
  return `http://127.0.0.1:${port}`;
}

/**
 * One app's environment on a platform. `wiring.ports` holds the platform's apps and where each
 * listens; an app calls the others at those ports, and a dependency the platform does not run is
 * left to the app's default. Settings without a value are left out: the app's default applies, or
 * its config names the required one that is missing.
 */
export function appEnvironment(app, wiring) {
  const { ports, secrets } = wiring;
  if (ports[app] === undefined) throw new Error(`${app} has no port in this platform's wiring`);
  const url = (name) => (ports[name] === undefined ? undefined : localUrl(ports[name]));
  const database = { DATABASE_URL: wiring.databaseUrls?.[app] };
  // Stats and the gateway share the WebSocket pushes' keys and channels: one Redis, one prefix.
  const redis = {
    REDIS_URL: wiring.redisUrl,
    REDIS_CLUSTER_NODES: wiring.redisClusterNodes,
    REDIS_KEY_PREFIX: wiring.redisKeyPrefix,
  };
  const own = {
    license: () => ({
      ...database,
      ADMIN_TOKEN: secrets.adminToken,
      SIGNING_KEY_SECRET: secrets.signingKeySecret,
      PUBLIC_URL: url("license"),
      MAIL_DIR: wiring.mailDir,
    }),
    matchmaker: () => ({ LICENSE_URL: url("license"), LICENSE_KEY: secrets.licenseKey }),
    stats: () => ({
      ...database,
      ...redis,
      SERVICE_TOKEN: secrets.serviceToken,
      MATCHMAKER_URL: url("matchmaker"),
    }),
    gateway: () => ({
      ...database,
      ...redis,
      ADMIN_TOKEN: secrets.adminToken,
      SERVICE_TOKEN: secrets.serviceToken,
      SIGNING_KEY_SECRET: secrets.signingKeySecret,
      STATS_URL: url("stats"),
      PUBLIC_URL: url("gateway"),
    }),
  }[app];
  if (!own) throw new Error(`no app ${app}: the apps are ${APPS.join(", ")}`);
  const env = { HOST: wiring.host, LOG_LEVEL: wiring.logLevel, PORT: String(ports[app]), ...own() };
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
}
