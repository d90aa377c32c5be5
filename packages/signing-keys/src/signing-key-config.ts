/**
 * The settings of an app that signs with keys of this package, for its config schema: the secret
 * that seals their private halves at rest, and how often a new key takes over. `signs` says what
 * the keys sign, for the setting's description.
 */
export function signingKeyConfigProperties(signs: string) {
  return {
    SIGNING_KEY_SECRET: {
      type: "string",
      minLength: 32,
      description: `Seals the ${signs} signing keys' private halves at rest (AES-256-GCM, HKDF-derived)`,
    },
    SIGNING_KEY_ROTATION_DAYS: { type: "integer", minimum: 1, default: 30 },
  } as const;
}
