import {
  HOSTED_OPERATIONS,
  type HostedOperation,
  openApiComponentSchemas,
  operationErrorStatuses,
  SCHEMA_NAMES,
  type SchemaName,
  WEBSOCKET_SCHEMAS,
} from "@arena/contracts";
import { adminPaths } from "./admin-paths.js";
import { identityPaths } from "./identity-paths.js";
import { codesOfStatuses, problemResponses } from "./problem-responses.js";
import { RequestBodies } from "./request-bodies.js";

type Json = Record<string, unknown>;

const json = (name: SchemaName) => ({
  content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } },
});

function parametersOf(op: HostedOperation): Json[] {
  const parameters: Json[] = [
    ...Object.entries(op.params).map(([name, schema]) => ({ name, in: "path", required: true, schema })),
    ...Object.entries(op.query ?? {}).map(([name, schema]) => ({
      name,
      in: "query",
      required: false,
      schema,
    })),
  ];
  if (op.prefer) {
    parameters.push({
      name: "Prefer",
      in: "header",
      required: false,
      description: `\`return=representation\` answers ${op.prefer.representation} with a body instead of ${op.prefer.plain}`,
      schema: { type: "string", enum: ["return=representation", "return=minimal"] },
    });
  }
  return parameters;
}

/** A leaderboard answer served from the gateway replica's cache (LEADERBOARD_CACHE_MS) says how old it is. */
const LEADERBOARD_AGE_HEADER = {
  description:
    "Present when the answer came from this gateway replica's leaderboard cache: its age in whole seconds (at most LEADERBOARD_CACHE_MS, 1 s by default)",
  schema: { type: "integer", minimum: 0 },
};

function hostedOperation(op: HostedOperation, bodies: RequestBodies): Json {
  const responses: Json = {};
  for (const [status, schema] of Object.entries(op.answers)) {
    responses[status] =
      schema === null ? { description: "No content" } : { description: "OK", ...json(schema) };
  }
  if (op.operationId === "getLeaderboard") {
    responses[200] = { ...(responses[200] as object), headers: { Age: LEADERBOARD_AGE_HEADER } };
  }
  Object.assign(responses, problemResponses(codesOfStatuses(operationErrorStatuses(op))));
  const roles = op.roles.join(" or ");
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: `Role: ${roles} (another role is answered 403).${op.action ? ` WebSocket action: \`${op.action}\`.` : ""}`,
    tags: [op.tag],
    security: [{ idToken: [] }],
    parameters: parametersOf(op),
    ...(op.body ? { requestBody: bodies.ref(op.body, { required: op.optionalBody !== true }) } : {}),
    responses,
  };
}

/**
 * The WebSocket's frames. No operation can refer to them (OpenAPI describes HTTP exchanges, and
 * the upgrade's 101 has no body), yet a client generating types needs them: they are components.
 */
export const WEBSOCKET_SCHEMA_NAMES: readonly SchemaName[] = WEBSOCKET_SCHEMAS.map((schema) => schema.$id);

/** Every `#/components/schemas/<name>` a part of the document refers to. */
function referencedSchemas(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) referencedSchemas(item, found);
  else if (value !== null && typeof value === "object") {
    for (const [key, child] of Object.entries(value)) {
      if (key === "$ref" && typeof child === "string") found.add(child.replace("#/components/schemas/", ""));
      else referencedSchemas(child, found);
    }
  }
  return found;
}

/**
 * `components.schemas`: what the document's answers refer to, and the WebSocket's frames; not the
 * platform's other services' shapes (matchmaker, license service), which the gateway never serves.
 */
function componentSchemas(paths: Json, requestBodies: Json): Json {
  const used = referencedSchemas([paths, requestBodies]);
  for (const name of WEBSOCKET_SCHEMA_NAMES) used.add(name);
  const all = openApiComponentSchemas();
  return Object.fromEntries(SCHEMA_NAMES.filter((name) => used.has(name)).map((name) => [name, all[name]]));
}

const TAGS: Record<string, string> = {
  identity: "Log in (Cognito-compatible) and the keys that verify the tokens",
  games: "A game's matchmaking configuration: modes, teams, rules, timeouts",
  queue: "Players waiting to be matched",
  matches: "Match suggestions and their life: confirm, fail, complete",
  backfill: "Replacement players for a match that lost one",
  statistics: "Ratings, statistics, results and leaderboards",
  seasons: "Seasons: start, cancel, reset with carry-over",
  websocket: "The WebSocket transport: every queue and match action, with pushes",
  admin: "The operator's API: tenants, app clients, users, signing keys (ADMIN_TOKEN)",
};

/** The paths of the document: the hosted operations of the action table and the gateway's own. */
function pathsOf(bodies: RequestBodies): Json {
  const paths = { ...identityPaths(bodies), ...adminPaths(bodies) } as Record<string, Json>;
  for (const op of HOSTED_OPERATIONS as readonly HostedOperation[]) {
    paths[op.path] = { ...paths[op.path], [op.method.toLowerCase()]: hostedOperation(op, bodies) };
  }
  return paths;
}

/**
 * The OpenAPI 3.1 document of the public API, generated from the contracts and the action table.
 * Its schemas are plain JSON Schema 2020-12, valid in OpenAPI 3.1's default dialect (2020-12 plus
 * OpenAPI's keywords): no `jsonSchemaDialect`, which swagger-ui refuses to render. The server is relative: the gateway that served the document,
 * which is also the only address the /docs page may call (its CSP allows `connect-src 'self'`).
 */
export function openApiDocument(): Json {
  const bodies = new RequestBodies();
  const paths = pathsOf(bodies);
  const requestBodies = bodies.components();
  return {
    openapi: "3.1.0",
    info: {
      title: "Arena hosted API",
      version: "1.0.0",
      description:
        "Matchmaking, player statistics and leaderboards for game servers. Log in at `/auth` (Cognito-compatible), then send the IdToken as `Authorization` on every call. Errors are `application/problem+json` (RFC 9457).",
    },
    servers: [{ url: "/", description: "The gateway that serves this document" }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: componentSchemas(paths, requestBodies),
      requestBodies,
      securitySchemes: {
        idToken: {
          type: "apiKey",
          in: "header",
          name: "Authorization",
          description: "The IdToken from /auth, raw or as `Bearer <IdToken>`",
        },
        idTokenQuery: {
          type: "apiKey",
          in: "query",
          name: "authorization",
          description: "The IdToken from /auth, for a WebSocket client that cannot set headers (/ws only)",
        },
        adminToken: { type: "http", scheme: "bearer", description: "ADMIN_TOKEN (operators only)" },
      },
    },
  };
}
