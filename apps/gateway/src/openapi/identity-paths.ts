import {
  ClientMessageSchema,
  MESSAGE_ACTIONS,
  openApiComponentSchemas,
  type SchemaName,
} from "@arena/contracts";
import { INITIATE_AUTH_TARGET, RESPOND_TO_AUTH_CHALLENGE_TARGET } from "../identity/cognito-routes.js";
import { problemResponses } from "./problem-responses.js";
import type { RequestBodies } from "./request-bodies.js";

type Json = Record<string, unknown>;

const AMZ_JSON = "application/x-amz-json-1.1";
const schemaRef = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });

/**
 * The Cognito operations `/auth` serves: Cognito's JSON protocol, one URL, the operation chosen by
 * the `X-Amz-Target` header. A new target is one more entry here.
 */
export const COGNITO_TARGETS: readonly { target: string; request: SchemaName; response: SchemaName }[] = [
  { target: INITIATE_AUTH_TARGET, request: "InitiateAuthRequest", response: "InitiateAuthResponse" },
  {
    target: RESPOND_TO_AUTH_CHALLENGE_TARGET,
    request: "RespondToAuthChallengeRequest",
    response: "RespondToAuthChallengeResponse",
  },
];

/**
 * One schema, or the choice between several (each target's own). Requests are `oneOf`: each
 * target's request requires its own field (`AuthFlow`, `ChallengeName`). Answers are `anyOf`: a
 * login's tokens are a valid answer of both operations, which `oneOf` would reject.
 */
const choiceOf = (keyword: "oneOf" | "anyOf", schemas: Json[]): Json =>
  schemas.length === 1 ? schemas[0]! : { [keyword]: schemas };

function cognitoError(description: string): Json {
  return { description, content: { [AMZ_JSON]: { schema: schemaRef("CognitoError") } } };
}

/** `POST /auth`: Cognito's JSON protocol. Public: this is where a token is got. */
function authPath(bodies: RequestBodies): Json {
  const schemas = openApiComponentSchemas();
  const targets = COGNITO_TARGETS.map(({ target }) => `\`${target}\``).join(", ");
  return {
    post: {
      operationId: "cognito",
      summary: "Log in: Cognito's JSON protocol (the operation is the X-Amz-Target header)",
      description: `Wire-compatible with Amazon Cognito's user pool API: the AWS SDKs and Cognito clients post here with their endpoint set to \`<gateway>/auth\` (\`/auth/\` is served too). The header \`X-Amz-Target\` selects the operation (${targets}); the body is that operation's request, the answer its response. Errors are Cognito's (\`__type\`, \`message\`, header \`x-amzn-errortype\`), not problems.`,
      tags: ["identity"],
      security: [],
      parameters: [
        {
          name: "X-Amz-Target",
          in: "header",
          required: true,
          description: "The Cognito operation",
          schema: { type: "string", enum: COGNITO_TARGETS.map(({ target }) => target) },
        },
      ],
      requestBody: bodies.refTo(
        "CognitoRequest",
        choiceOf(
          "oneOf",
          COGNITO_TARGETS.map((t) => schemas[t.request]),
        ),
        {
          mediaType: AMZ_JSON,
        },
      ),
      responses: {
        "200": {
          description:
            "The operation's response: tokens for a login, or for `USER_SRP_AUTH` the `PASSWORD_VERIFIER` challenge (`ChallengeParameters` `SALT`, `SRP_B`, `SECRET_BLOCK`, `USER_ID_FOR_SRP`) that RespondToAuthChallenge answers",
          content: {
            [AMZ_JSON]: {
              schema: choiceOf(
                "anyOf",
                COGNITO_TARGETS.map((t) => schemaRef(t.response)),
              ),
            },
          },
        },
        "400": cognitoError(
          "`NotAuthorizedException`, `InvalidParameterException`, `ResourceNotFoundException`, `TooManyRequestsException` or `UnknownOperationException`",
        ),
        "500": cognitoError("`InternalErrorException`"),
        ...problemResponses(["HEADERS_TOO_LARGE"]),
      },
    },
  };
}

/** The published verification keys: an RFC 7517 key set. */
const JWKS_SCHEMA = {
  type: "object",
  required: ["keys"],
  properties: {
    keys: {
      type: "array",
      items: {
        type: "object",
        required: ["kty", "kid"],
        properties: {
          kty: { type: "string" },
          kid: { type: "string" },
          alg: { type: "string" },
          use: { type: "string" },
        },
      },
    },
  },
};

const jwksPath = {
  get: {
    operationId: "getJwks",
    summary:
      "The public keys that verify IdTokens and AccessTokens (RS256, or EdDSA), old ones until their tokens expire",
    tags: ["identity"],
    security: [],
    responses: {
      "200": { description: "JSON Web Key Set", content: { "application/json": { schema: JWKS_SCHEMA } } },
      ...problemResponses(["HEADERS_TOO_LARGE", "SERVICE_UNAVAILABLE"]),
    },
  },
};

const wsPath = {
  get: {
    operationId: "openWebSocket",
    summary: "The WebSocket message transport",
    description: `An HTTP upgrade (RFC 6455) with the IdToken as \`Authorization\` or, for clients that cannot set headers, as \`?authorization=\`. Messages \`{action, messageId, payload}\`; actions: ${MESSAGE_ACTIONS.map((a) => `\`${a}\``).join(", ")}. The frames' schemas are components: ${ClientMessageSchema.$id}, ServerResponse, ServerErrorMessage, MatchSuggestionMessage, BackfillingMatchSuggestionMessage, PlayersRemovedMessage, KeepAliveMessage, and each action's payload (\`<Action>Payload\`, \`<Action>ResponsePayload\`).`,
    tags: ["websocket"],
    security: [{ idToken: [] }, { idTokenQuery: [] }],
    responses: {
      "101": { description: "Switching protocols: the connection is a WebSocket from here on" },
      ...problemResponses(["UNAUTHENTICATED", "RATE_LIMITED", "HEADERS_TOO_LARGE", "SERVICE_UNAVAILABLE"]),
    },
  },
};

/** Login, the token keys and the WebSocket. */
export function identityPaths(bodies: RequestBodies): Json {
  return { "/auth": authPath(bodies), "/.well-known/jwks.json": jwksPath, "/ws": wsPath };
}
