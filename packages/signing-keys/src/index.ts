export { jwksRoutes } from "./jwks-routes.js";
export {
  type ActiveSigningKey,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
  signJwt,
} from "./key-algorithms.js";
export {
  prismaSigningKeyStore,
  type SigningKeyDatabase,
  type SigningKeyModel,
  type TransactionalSigningKeyDatabase,
} from "./prisma-signing-key-store.js";
export { deriveSealingKey, open, seal } from "./sealed-box.js";
export { signingKeyConfigProperties } from "./signing-key-config.js";
export type { SigningKeyStore, SigningKeyTransaction, StoredSigningKey } from "./signing-key-store.js";
export {
  type Clock,
  type RotatedKey,
  type RotationOptions,
  rotatedSigningKey,
  SigningKeys,
  type SigningKeysLogger,
  type SigningKeysOptions,
} from "./signing-keys.js";
