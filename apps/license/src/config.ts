import { databaseConfigProperties } from "@arena/database";
import {
  adminTokenConfigProperty,
  commonConfigProperties,
  loadConfig,
  portConfigProperty,
} from "@arena/service-kit";
import { signingKeyConfigProperties } from "@arena/signing-keys";

export const licenseConfigSchema = {
  type: "object",
  required: ["ADMIN_TOKEN", "SIGNING_KEY_SECRET"],
  properties: {
    ...commonConfigProperties,
    ...portConfigProperty(8082),
    ...databaseConfigProperties("arena_license", 10),
    ...adminTokenConfigProperty,
    ...signingKeyConfigProperties("lease"),
    LEASE_TTL_SECONDS: { type: "integer", minimum: 60, maximum: 2_592_000, default: 86_400 },
    PUBLIC_URL: {
      type: "string",
      pattern: "^https?://",
      default: "http://localhost:8082",
      description: "Where matchmakers reach this service; quoted in the key mails as LICENSE_URL",
    },
    SMTP_URL: { type: "string", pattern: "^smtps?://", description: "Unset: mails are written to MAIL_DIR" },
    MAIL_FROM: { type: "string", minLength: 3, default: "Arena Licensing <licenses@arena.localhost>" },
    MAIL_DIR: { type: "string", minLength: 1, default: "./.dev/mail" },
    MAIL_SEND_ATTEMPTS: { type: "integer", minimum: 1, maximum: 20, default: 5 },
    REGISTRATION_WINDOW_SECONDS: { type: "integer", minimum: 1, default: 3600 },
    REGISTRATION_LIMIT_PER_EMAIL: { type: "integer", minimum: 1, default: 5 },
    REGISTRATION_LIMIT_PER_IP: { type: "integer", minimum: 1, default: 20 },
  },
} as const;

export type LicenseConfig = ReturnType<typeof loadLicenseConfig>;

/** The validated, frozen configuration; throws one ConfigError that lists every problem. */
export function loadLicenseConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(licenseConfigSchema, env);
}

/**
 * The settings the CLI reads, with the same rules and defaults as the service's; none is required
 * (only `rotate-signing-key` needs SIGNING_KEY_SECRET, and says so).
 */
export function loadCliSettings(env: NodeJS.ProcessEnv = process.env) {
  const { DATABASE_URL, SIGNING_KEY_SECRET, LEASE_TTL_SECONDS } = licenseConfigSchema.properties;
  const properties = { DATABASE_URL, SIGNING_KEY_SECRET, LEASE_TTL_SECONDS };
  return loadConfig({ type: "object", properties } as const, env);
}
