import {
  BackfillCreatedSchema,
  BackfillRequestSchema,
  BackfillStatusSchema,
  BackfillSuggestionSchema,
} from "./backfill.js";
import { GameConfigRequestSchema, GameConfigSchema } from "./games.js";
import {
  ClientListSchema,
  CognitoErrorSchema,
  CreateClientRequestSchema,
  CreatedClientSchema,
  CreateTenantRequestSchema,
  CreateUserRequestSchema,
  InitiateAuthRequestSchema,
  InitiateAuthResponseSchema,
  RespondToAuthChallengeRequestSchema,
  RespondToAuthChallengeResponseSchema,
  RevokedRefreshTokensSchema,
  TenantDetailsSchema,
  TenantListSchema,
  TenantSchema,
  UpdateTenantRequestSchema,
  UpdateUserRequestSchema,
  UserListSchema,
  UserSchema,
} from "./identity.js";
import {
  LeaderboardReadBatchAnswerSchema,
  LeaderboardReadBatchSchema,
  LeaderboardRequestSchema,
  LeaderboardResponseSchema,
} from "./leaderboard.js";
import {
  CreatedLicenseSchema,
  CreateLicenseRequestSchema,
  LicenseListQuerySchema,
  LicenseListSchema,
  LicenseSummarySchema,
  RegistrationAcceptedSchema,
  RegistrationRequestSchema,
  RotatedSigningKeySchema,
  RotateSigningKeyRequestSchema,
  UpdateLicenseRequestSchema,
  ValidateLicenseRequestSchema,
  ValidateLicenseResponseSchema,
} from "./license.js";
import {
  CompleteMatchRequestSchema,
  CompleteMatchResponseSchema,
  ConfirmMatchRequestSchema,
  DeliveredMatchListSchema,
  FailMatchRequestSchema,
  FailMatchResponseSchema,
  MatchSchema,
  QueueClearedSchema,
} from "./matches.js";
import {
  GameModeSchema,
  MatchmakingRequestSchema,
  MatchmakingResponseSchema,
  TicketSchema,
} from "./matchmaking.js";
import {
  BackfillingMatchSuggestionMessageSchema,
  ClientMessageSchema,
  GetPlayerStatsMessageSchema,
  GetPlayerStatsResponseMessageSchema,
  KeepAliveMessageSchema,
  MatchSuggestionMessageSchema,
  MESSAGE_PAYLOAD_SCHEMAS,
  MESSAGE_RESPONSE_PAYLOAD_SCHEMAS,
  PlayersRemovedMessageSchema,
  ServerErrorMessageSchema,
  ServerResponseSchema,
} from "./messages.js";
import { PlayerListSchema, SubmitPlayersRequestSchema, SubmitPlayersResponseSchema } from "./players.js";
import { ProblemSchema } from "./problem.js";
import {
  CreateSeasonRequestSchema,
  PlayerHistoryQuerySchema,
  PlayerHistorySchema,
  PlayerStatsSchema,
  RestPlayerStatsSchema,
  SeasonListSchema,
  SeasonResetRequestSchema,
  SeasonSchema,
} from "./statistics.js";
import { ajv, compile, type Validator } from "./validation.js";

/**
 * The WebSocket's frames and their payloads: registered like every other schema, and listed as
 * components of the OpenAPI document, which no operation can refer to (the upgrade's 101 has no body).
 */
export const WEBSOCKET_SCHEMAS = [
  ClientMessageSchema,
  ServerResponseSchema,
  ServerErrorMessageSchema,
  GetPlayerStatsMessageSchema,
  GetPlayerStatsResponseMessageSchema,
  MatchSuggestionMessageSchema,
  BackfillingMatchSuggestionMessageSchema,
  PlayersRemovedMessageSchema,
  KeepAliveMessageSchema,
  ...Object.values(MESSAGE_PAYLOAD_SCHEMAS),
  ...Object.values(MESSAGE_RESPONSE_PAYLOAD_SCHEMAS),
] as const;

/**
 * Every top-level wire schema, once, for documentation (the gateway's OpenAPI 3.1 component
 * schemas) and for tooling that walks all contracts. Each carries `$id` equal to its name here;
 * sub-schemas embedded in several of them carry none (ajv rejects an `$id` registered twice, and a
 * test walks every schema to keep it so).
 */
const topLevelSchemas = [
  ProblemSchema,
  // matchmaker
  GameModeSchema,
  TicketSchema,
  MatchmakingRequestSchema,
  MatchmakingResponseSchema,
  // license service
  RegistrationRequestSchema,
  RegistrationAcceptedSchema,
  ValidateLicenseRequestSchema,
  ValidateLicenseResponseSchema,
  CreateLicenseRequestSchema,
  UpdateLicenseRequestSchema,
  LicenseSummarySchema,
  CreatedLicenseSchema,
  LicenseListSchema,
  LicenseListQuerySchema,
  RotateSigningKeyRequestSchema,
  RotatedSigningKeySchema,
  // identity
  InitiateAuthRequestSchema,
  InitiateAuthResponseSchema,
  RespondToAuthChallengeRequestSchema,
  RespondToAuthChallengeResponseSchema,
  CognitoErrorSchema,
  CreateTenantRequestSchema,
  TenantSchema,
  CreateClientRequestSchema,
  CreatedClientSchema,
  CreateUserRequestSchema,
  UserSchema,
  UpdateUserRequestSchema,
  RevokedRefreshTokensSchema,
  TenantListSchema,
  ClientListSchema,
  UserListSchema,
  UpdateTenantRequestSchema,
  TenantDetailsSchema,
  // hosted REST
  GameConfigRequestSchema,
  GameConfigSchema,
  SubmitPlayersRequestSchema,
  SubmitPlayersResponseSchema,
  PlayerListSchema,
  DeliveredMatchListSchema,
  MatchSchema,
  ConfirmMatchRequestSchema,
  FailMatchRequestSchema,
  FailMatchResponseSchema,
  QueueClearedSchema,
  CompleteMatchRequestSchema,
  CompleteMatchResponseSchema,
  BackfillRequestSchema,
  BackfillCreatedSchema,
  BackfillStatusSchema,
  BackfillSuggestionSchema,
  // statistics, seasons, leaderboard
  PlayerStatsSchema,
  RestPlayerStatsSchema,
  SeasonSchema,
  SeasonListSchema,
  CreateSeasonRequestSchema,
  SeasonResetRequestSchema,
  PlayerHistoryQuerySchema,
  PlayerHistorySchema,
  LeaderboardRequestSchema,
  LeaderboardResponseSchema,
  ...WEBSOCKET_SCHEMAS,
  // internal (gateway → stats only; the OpenAPI document refers to none of them)
  LeaderboardReadBatchSchema,
  LeaderboardReadBatchAnswerSchema,
] as const;

export type TopLevelSchema = (typeof topLevelSchemas)[number];
export type SchemaName = TopLevelSchema["$id"];

/** Name (= `$id`) → schema. */
export const schemaRegistry: Readonly<Record<SchemaName, TopLevelSchema>> = Object.freeze(
  Object.fromEntries(topLevelSchemas.map((schema) => [schema.$id, schema])) as Record<
    SchemaName,
    TopLevelSchema
  >,
);

/**
 * The validator of a registered schema, by name: compiled once into the shared ajv (which keeps
 * it under its `$id`), so a service validating by name and a module that compiled it share one.
 */
export function validatorFor<T = unknown>(name: SchemaName): Validator<T> {
  return (ajv.getSchema(name) as Validator<T> | undefined) ?? compile<T>(schemaRegistry[name]);
}

export const SCHEMA_NAMES: readonly SchemaName[] = Object.freeze(topLevelSchemas.map((schema) => schema.$id));

/**
 * The registry as OpenAPI 3.1 `components.schemas`: the same JSON Schema 2020-12 objects with their
 * `$id` removed (in an OpenAPI document a component is addressed as `#/components/schemas/<name>`).
 */
export function openApiComponentSchemas(): Record<SchemaName, Record<string, unknown>> {
  const components = {} as Record<SchemaName, Record<string, unknown>>;
  for (const schema of topLevelSchemas) {
    const { $id, ...rest } = schema;
    components[$id] = rest;
  }
  return components;
}
