import type { Redis, RedisKeys } from "@arena/redis";
import { type Clock, Counter, type Logger, type ServiceKitContext } from "@arena/service-kit";
import { jwksRoutes, type SigningKeys } from "@arena/signing-keys";
import type { Express } from "express";
import type { GatewayConfig } from "../config.js";
import type { Database } from "../db.js";
import { cognitoErrorHandler } from "./cognito-errors.js";
import { cognitoRoutes } from "./cognito-routes.js";
import { IdentityStore } from "./identity-store.js";
import { LoginFlows } from "./login-flows.js";
import { LoginThrottle } from "./login-throttle.js";
import type { ScryptCost } from "./passwords.js";
import { gatewaySigningKeys } from "./signing-key-store.js";
import { SRP_CHALLENGE_LIFETIME_MS, SrpLogin } from "./srp-login.js";
import { SecretBlocks } from "./srp-secret-block.js";
import { TokenService } from "./tokens.js";

export interface IdentityPartDeps {
  db: Database;
  redis: Redis;
  keys: RedisKeys;
  clock: Clock;
  logger: Logger;
  config: GatewayConfig;
}

export interface IdentityPart {
  store: IdentityStore;
  /** Failed logins; the operator lifts a user's locks through it. */
  throttle: LoginThrottle;
  signingKeys: SigningKeys;
  tokens: TokenService;
  /** The scrypt cost of new password hashes (logins and the admin API alike). */
  passwordCost: ScryptCost;
  /**
   * `/auth` (InitiateAuth and RespondToAuthChallenge, answering Cognito's errors) and the JWKS;
   * counts logins by outcome.
   */
  mount(app: Express, kit: ServiceKitContext): void;
}

/** Users, passwords, login throttling, signing keys and tokens. */
export function identityPart({ db, redis, keys, clock, logger, config }: IdentityPartDeps): IdentityPart {
  const store = new IdentityStore(db, clock, { region: config.USER_POOL_REGION });
  const signingKeys = gatewaySigningKeys({
    db,
    clock,
    logger,
    secret: config.SIGNING_KEY_SECRET,
    rotationDays: config.SIGNING_KEY_ROTATION_DAYS,
    algorithm: config.TOKEN_SIGNING_ALGORITHM,
  });
  const tokens = new TokenService(signingKeys, clock, config.PUBLIC_URL, config.ID_TOKEN_SECONDS);
  const passwordCost = { logN: config.PASSWORD_SCRYPT_LOG_N };
  const throttle = new LoginThrottle({
    redis,
    keys,
    clock,
    windowSeconds: config.LOGIN_FAILURE_WINDOW_SECONDS,
    perUsernameAndAddress: config.LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS,
    perUsername: config.LOGIN_FAILURES_PER_USERNAME,
    maxDelaySeconds: config.LOGIN_FAILURE_DELAY_MAX_SECONDS,
    perAddress: config.LOGIN_FAILURES_PER_ADDRESS,
    knownAddressDays: config.LOGIN_KNOWN_ADDRESS_DAYS,
  });
  const flows = new LoginFlows({
    identity: store,
    tokens,
    throttle,
    clock,
    passwordCost,
    refreshTokenLifetimeMs: config.REFRESH_TOKEN_DAYS * 86_400_000,
  });
  const blocks = new SecretBlocks({
    secret: config.SIGNING_KEY_SECRET,
    redis,
    keys,
    lifetimeMs: SRP_CHALLENGE_LIFETIME_MS,
  });
  const srp = new SrpLogin({
    identity: store,
    throttle,
    clock,
    blocks,
    flows,
    secret: config.SIGNING_KEY_SECRET,
  });
  const mount = (app: Express, kit: ServiceKitContext) => {
    const outcomes = new Counter({
      name: "gateway_logins_total",
      help: "InitiateAuth and RespondToAuthChallenge answers by outcome: success, challenge (USER_SRP_AUTH's first step), or the Cognito error type",
      labelNames: ["outcome"] as const,
      registers: [kit.metrics.registry],
    });
    app.use("/auth", cognitoRoutes({ identity: store, flows, srp, outcomes }));
    app.use("/auth", cognitoErrorHandler(outcomes));
    app.use(jwksRoutes(signingKeys));
  };
  return { store, throttle, signingKeys, tokens, passwordCost, mount };
}
