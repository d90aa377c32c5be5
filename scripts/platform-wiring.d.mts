// The types of platform-wiring.mjs, for the TypeScript that starts the platform (e2e, bench).

export type AppName = "license" | "matchmaker" | "stats" | "gateway";
export type DatabaseApp = "license" | "stats" | "gateway";

export declare const APPS: readonly AppName[];
export declare const BASE_PORTS: Readonly<Record<AppName, number>>;
export declare const DATABASE_APPS: readonly DatabaseApp[];
export declare const NODE_FLAGS: Readonly<Record<AppName, readonly string[]>>;

export declare function platformPorts(offset?: number): Record<AppName, number>;
export declare function localUrl(port: number): string;

export interface PlatformSecrets {
  /** The license service's and the gateway's /admin API. */
  adminToken: string;
  /** The gateway's token to stats. */
  serviceToken: string;
  /** Seals the license service's and the gateway's signing keys at rest. */
  signingKeySecret: string;
  /** The matchmaker's license: issued by the platform's license service once it runs. */
  licenseKey?: string;
}

export interface PlatformWiring {
  /** The platform's apps and where each listens. */
  ports: Partial<Record<AppName, number>>;
  secrets: PlatformSecrets;
  /** Each app's own database. */
  databaseUrls?: Partial<Record<DatabaseApp, string>>;
  redisUrl?: string;
  /** Redis Cluster seeds (`host:port,...`); when set stats and the gateway use the cluster. */
  redisClusterNodes?: string;
  /** The start of every Redis key of stats and the gateway. */
  redisKeyPrefix?: string;
  /** Where the license service writes its mails when it has no SMTP server. */
  mailDir?: string;
  /** The interface every app listens on. */
  host?: string;
  logLevel?: string;
}

export declare function appEnvironment(app: AppName, wiring: PlatformWiring): Record<string, string>;
