import type { FromSchema } from "json-schema-to-ts";
import { compile } from "./validation.js";

/** The two editions. `advanced` adds latency maps and `/matchmaking/advanced`. */
export const EDITIONS = ["community", "advanced"] as const;
export type Edition = (typeof EDITIONS)[number];

const EditionSchema = { type: "string", enum: EDITIONS } as const;
/**
 * Text that names a person or a studio and travels into e-mails and PostgreSQL: no control
 * characters (Unicode Cc: NUL, which PostgreSQL refuses, and CR/LF, which would forge mail lines),
 * no line or paragraph separators and no bidirectional overrides (which make a mail read other
 * than it is written).
 */
export const SINGLE_LINE_TEXT_PATTERN =
  "^[^\\u0000-\\u001F\\u007F-\\u009F\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069]*$";

// The email format already refuses control characters; the pattern says so where clients can read it.
const EmailSchema = {
  type: "string",
  format: "email",
  minLength: 3,
  maxLength: 254,
  pattern: SINGLE_LINE_TEXT_PATTERN,
} as const;
const NameSchema = {
  type: "string",
  minLength: 1,
  maxLength: 200,
  pattern: SINGLE_LINE_TEXT_PATTERN,
} as const;

/** License keys are `lk_` plus 32 base62 characters; anything else is rejected before a lookup. */
export const LICENSE_KEY_PATTERN = "^lk_[0-9A-Za-z]{32}$";

export const RegistrationRequestSchema = {
  $id: "RegistrationRequest",
  type: "object",
  required: ["name", "email"],
  properties: { name: NameSchema, email: EmailSchema },
  additionalProperties: false,
} as const;
export type RegistrationRequest = FromSchema<typeof RegistrationRequestSchema>;

/** The 202 answer to every accepted registration: the same whatever happened, so it reveals nothing. */
export const RegistrationAcceptedSchema = {
  $id: "RegistrationAccepted",
  type: "object",
  required: ["status", "detail"],
  properties: {
    status: { type: "string", const: "accepted" },
    detail: { type: "string", minLength: 1 },
  },
  additionalProperties: false,
} as const;
export type RegistrationAccepted = FromSchema<typeof RegistrationAcceptedSchema>;

export const ValidateLicenseRequestSchema = {
  $id: "ValidateLicenseRequest",
  type: "object",
  required: ["licenseKey"],
  properties: { licenseKey: { type: "string", minLength: 1, maxLength: 200 } },
  additionalProperties: false,
} as const;
export type ValidateLicenseRequest = FromSchema<typeof ValidateLicenseRequestSchema>;

export const ValidateLicenseResponseSchema = {
  $id: "ValidateLicenseResponse",
  type: "object",
  required: ["edition", "expiresAt", "lease"],
  properties: {
    edition: EditionSchema,
    /** When the lease expires (ISO 8601); the holder must validate again before then. */
    expiresAt: { type: "string", format: "date-time" },
    /** A JWT signed by the license service (see LeaseClaims), verifiable with its JWKS. */
    lease: { type: "string", minLength: 1 },
  },
  additionalProperties: false,
} as const;
export type ValidateLicenseResponse = FromSchema<typeof ValidateLicenseResponseSchema>;

export const CreateLicenseRequestSchema = {
  $id: "CreateLicenseRequest",
  type: "object",
  required: ["name", "email", "edition"],
  properties: { name: NameSchema, email: EmailSchema, edition: EditionSchema },
  additionalProperties: false,
} as const;
export type CreateLicenseRequest = FromSchema<typeof CreateLicenseRequestSchema>;

export const UpdateLicenseRequestSchema = {
  $id: "UpdateLicenseRequest",
  type: "object",
  required: ["edition"],
  properties: { edition: EditionSchema },
  additionalProperties: false,
} as const;
export type UpdateLicenseRequest = FromSchema<typeof UpdateLicenseRequestSchema>;

/** License ids are `lic_` plus base62; a path id of any other shape names no license. */
export const LICENSE_ID_PATTERN = "^lic_[0-9A-Za-z]{1,64}$";

const LicenseSummaryProperties = {
  id: { type: "string", pattern: LICENSE_ID_PATTERN },
  name: NameSchema,
  email: EmailSchema,
  edition: EditionSchema,
  /** The first characters of the key, enough to recognise it; the key itself is never stored. */
  keyPrefix: { type: "string" },
  status: { type: "string", enum: ["active", "revoked"] },
  createdAt: { type: "string", format: "date-time" },
  updatedAt: { type: "string", format: "date-time" },
  revokedAt: { type: ["string", "null"], format: "date-time" },
} as const;

const LicenseSummaryObject = {
  type: "object",
  required: ["id", "name", "email", "edition", "keyPrefix", "status", "createdAt", "updatedAt", "revokedAt"],
  properties: LicenseSummaryProperties,
  additionalProperties: false,
} as const;

export const LicenseSummarySchema = { $id: "LicenseSummary", ...LicenseSummaryObject } as const;
export type LicenseSummary = FromSchema<typeof LicenseSummarySchema>;

/** The admin create answer: the only time the full key is ever shown. */
export const CreatedLicenseSchema = {
  $id: "CreatedLicense",
  type: "object",
  required: ["id", "licenseKey", "edition"],
  properties: {
    id: LicenseSummaryProperties.id,
    licenseKey: { type: "string", pattern: LICENSE_KEY_PATTERN },
    edition: EditionSchema,
    keyPrefix: LicenseSummaryProperties.keyPrefix,
  },
  additionalProperties: false,
} as const;
export type CreatedLicense = FromSchema<typeof CreatedLicenseSchema>;

export const LicenseListSchema = {
  $id: "LicenseList",
  type: "object",
  required: ["licenses"],
  properties: {
    licenses: { type: "array", items: LicenseSummaryObject },
    nextCursor: { type: ["string", "null"] },
  },
  additionalProperties: false,
} as const;
export type LicenseList = FromSchema<typeof LicenseListSchema>;

export const LICENSE_LIST_DEFAULT_LIMIT = 50;
export const LICENSE_LIST_MAX_LIMIT = 200;

/**
 * The query of `GET /admin/licenses`, after a decimal `limit` is read as its number (query values
 * arrive as text; anything else is left as text for the schema to reject at `/limit`). Open, as
 * query strings are: unknown parameters are ignored.
 */
export const LicenseListQuerySchema = {
  $id: "LicenseListQuery",
  type: "object",
  properties: {
    limit: {
      type: "integer",
      minimum: 1,
      maximum: LICENSE_LIST_MAX_LIMIT,
      description: `Page size; ${LICENSE_LIST_DEFAULT_LIMIT} when omitted.`,
    },
    /** Opaque: the `nextCursor` of the previous page. */
    cursor: { type: "string", minLength: 1 },
  },
} as const;
export type LicenseListQuery = FromSchema<typeof LicenseListQuerySchema>;

/**
 * The optional body of `POST /admin/signing-keys/rotate` (license service and gateway alike); no
 * body is `{}`, the scheduled kind of rotation.
 */
export const RotateSigningKeyRequestSchema = {
  $id: "RotateSigningKeyRequest",
  type: "object",
  properties: {
    revokePrevious: {
      type: "boolean",
      default: false,
      description:
        "Emergency rotation: every earlier key leaves the JWKS at once and nothing it signed verifies any more. Without it, earlier keys stay published until what they signed has expired.",
    },
  },
  additionalProperties: false,
} as const;
export type RotateSigningKeyRequest = FromSchema<
  typeof RotateSigningKeyRequestSchema,
  { keepDefaultedPropertiesOptional: true }
>;

/** The 201 answer of `POST /admin/signing-keys/rotate`: the key that signs from now on. */
export const RotatedSigningKeySchema = {
  $id: "RotatedSigningKey",
  type: "object",
  required: ["kid", "createdAt"],
  properties: {
    /** The `kid` of the key in the JWKS and in the header of what it signs. */
    kid: { type: "string", minLength: 1 },
    createdAt: { type: "string", format: "date-time" },
    revokedKids: {
      type: "array",
      items: { type: "string", minLength: 1 },
      description: "The keys `revokePrevious` withdrew; absent without it.",
    },
  },
  additionalProperties: false,
} as const;
export type RotatedSigningKey = FromSchema<typeof RotatedSigningKeySchema>;

/**
 * The claims of a lease JWT (EdDSA, `kid` in the header, keys at `/.well-known/jwks.json`).
 * `iss` is the license service, `aud` the product that holds the lease, `sub` the license id.
 */
export const LEASE_ISSUER = "arena-license";
export const LEASE_AUDIENCE = "arena-matchmaker";
export interface LeaseClaims {
  iss: typeof LEASE_ISSUER;
  aud: typeof LEASE_AUDIENCE;
  sub: string;
  edition: Edition;
  iat: number;
  exp: number;
}

export const validateRegistrationRequest = compile<RegistrationRequest>(RegistrationRequestSchema);
export const validateRegistrationAccepted = compile<RegistrationAccepted>(RegistrationAcceptedSchema);
export const validateValidateLicenseRequest = compile<ValidateLicenseRequest>(ValidateLicenseRequestSchema);
export const validateValidateLicenseResponse = compile<ValidateLicenseResponse>(
  ValidateLicenseResponseSchema,
);
export const validateCreateLicenseRequest = compile<CreateLicenseRequest>(CreateLicenseRequestSchema);
export const validateUpdateLicenseRequest = compile<UpdateLicenseRequest>(UpdateLicenseRequestSchema);
export const validateLicenseListQuery = compile<LicenseListQuery>(LicenseListQuerySchema);
export const validateRotateSigningKeyRequest = compile<RotateSigningKeyRequest>(
  RotateSigningKeyRequestSchema,
);
export const validateRotatedSigningKey = compile<RotatedSigningKey>(RotatedSigningKeySchema);
