import { commonConfigProperties, loadConfig } from "@arena/service-kit";

export const licenseConfigSchema = {
  type: "object",
  required: ["ADMIN_TOKEN", "SIGNING_KEY_SECRET"],
  properties: {
    ...commonConfigProperties,
    PORT: { type: "integer", minimum: 0, maximum: 65535, default: 8082 },
    DATABASE_URL: {
      type: "string",
      pattern: "^postgres(ql)?://",
      default: "postgresql://postgres@127.0.0.1:5432/arena_license",
    },
    DATABASE_POOL_SIZE: {
      type: "integer",
      minimum: 1,
      maximum: 200,
      default: 10,
      description: "PostgreSQL connections of the process at most",
    },
    ADMIN_TOKEN: { type: "string", minLength: 16, description: "Bearer token of the /admin API" },
    SIGNING_KEY_SECRET: {
      type: "string",
      minLength: 32,
      description: "Seals the lease signing keys' private halves at rest (AES-256-GCM, HKDF-derived)",
    },
    SIGNING_KEY_ROTATION_DAYS: { type: "integer", minimum: 1, default: 30 },
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
