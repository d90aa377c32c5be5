import {
  HOSTED_OPERATIONS,
  type HostedOperation,
  MESSAGE_ACTIONS,
  MESSAGE_PAYLOAD_SCHEMAS,
  type MessageAction,
  operationOfAction,
  type SchemaName,
  schemaRegistry,
} from "@arena/contracts";
import { asParameterText, type HostileValue, percentEncode, toJsonText } from "./hostile-values.js";

/**
 * Fuzz cases generated from the action table: for every hosted operation (REST) and every
 * WebSocket action, the places a hostile value can go (each path parameter, query parameter and
 * body field, found by walking a valid body beside its schema) and the request that puts one there
 * while everything else stays valid, so the value reaches as deep as a valid one would.
 */

/** The fuzzing tenant's live objects, so near-valid requests name a real game, match and player. */
export interface FuzzWorld {
  gameId: string;
  matchId: string;
  /** The match's two players, one per team. */
  matchPlayers: readonly [string, string];
  waitingPlayerId: string;
  /** The match of the backfill request (a request drops its player from its match for good). */
  backfillMatchId: string;
  backfillingRequestId: string;
  /** A player id not used before (each valid submission needs new ones). */
  freshPlayerId(): string;
}

/** Where a hostile value goes: `param:gameId`, `query:force`, `body:/players/0/playerId`, `body:`. */
export type FuzzTarget = `param:${string}` | `query:${string}` | `body:${string}`;

/** A parameter no operation knows: the refusal of unknown query parameters is fuzzed too. */
const UNKNOWN_QUERY_PARAMETER = "unknownParameter";

const PATH_EXAMPLES: Record<string, (w: FuzzWorld) => string> = {
  gameId: (w) => w.gameId,
  matchId: (w) => w.matchId,
  playerId: (w) => w.waitingPlayerId,
  backfillingRequestId: (w) => w.backfillingRequestId,
  // A season the fuzzing tenant never scheduled: cancelling it is a 404, never its running S1.
  season: () => "S9",
};

/** A path parameter's valid value; the match of a backfill request's own operations is the request's. */
function pathExample(name: string, world: FuzzWorld, names: readonly string[]): string {
  if (name === "matchId" && names.includes("backfillingRequestId")) return world.backfillMatchId;
  const example = PATH_EXAMPLES[name];
  if (example === undefined)
    throw new Error(`No valid example of the path parameter ${name} for the fuzzer: add one`);
  return example(world);
}

/** Valid query parameters sent by default; `cursor` only when fuzzed (a valid one comes from a page). */
const QUERY_EXAMPLES: Record<string, ((w: FuzzWorld) => string) | undefined> = {
  force: () => "false",
  seasons: () => "S1",
  gameId: (w) => w.gameId,
  season: () => "S1",
  limit: () => "5",
  cursor: undefined,
};

const GAME_CONFIG = {
  numTeams: 2,
  numPlayersPerTeam: 1,
  targetWaitingTime: 1,
  maxWaitingTime: 30,
  ratingTolerance: 100,
  servers: ["eu-1", "us-1"],
  confirmationTimeout: 60,
  maxQueueSeconds: 600,
  // Fuzzed backfill requests stop searching soon: searching, they seat the players of new matches.
  backfillTimeout: 1,
};

/** The fuzzing tenant's valid game configuration, restored whenever a fuzzed one was stored. */
export const FUZZ_GAME_CONFIG: Readonly<typeof GAME_CONFIG> = GAME_CONFIG;

/** A valid body of every schema an operation takes. */
const BODY_EXAMPLES: Partial<Record<SchemaName, (w: FuzzWorld) => Record<string, unknown>>> = {
  GameConfigRequest: () => structuredClone(GAME_CONFIG),
  SubmitPlayersRequest: (w) => ({
    partyName: `party-${w.freshPlayerId()}`,
    players: [{ playerId: w.freshPlayerId(), servers: ["eu-1"], reference: "seat 1" }],
  }),
  // Empty lists confirm (or fail) the match as it is; a fuzzed element goes in at /remove/0.
  ConfirmMatchRequest: () => ({ remove: [], requeue: [] }),
  FailMatchRequest: () => ({ remove: [], requeue: [] }),
  CompleteMatchRequest: (w) => ({
    server: "eu-1",
    gameLength: 120,
    teams: [
      { rank: 0, players: [{ playerId: w.matchPlayers[0], score: 10 }] },
      { rank: 1, players: [{ playerId: w.matchPlayers[1], score: 5 }] },
    ],
  }),
  BackfillRequest: (w) => ({
    backfillingRequestId: `bf-${w.freshPlayerId()}`,
    droppedPlayerId: w.matchPlayers[1],
    matchScores: [{ score: 1, players: [{ playerId: w.matchPlayers[0], score: 1 }] }],
  }),
  // fromRank is left out (it excludes playerId); the schema walk adds it as a target.
  LeaderboardRequest: (w) => ({ count: 10, playerId: w.matchPlayers[0], season: "S1" }),
  CreateSeasonRequest: () => ({ startsAt: "2099-01-01T00:00:00.000Z", ratingCarryOver: 0.5 }),
  SeasonResetRequest: (w) => ({
    seasonName: "S2",
    seasonStart: "2099-01-01T00:00:00.000Z",
    percentages: [{ gameId: w.gameId, percentage: 50 }],
  }),
};

/** Payload fields of actions that are neither a path parameter nor a REST body field. */
const PAYLOAD_ONLY_EXAMPLES: Record<string, (w: FuzzWorld) => unknown> = {
  force: () => false,
  seasons: () => ["S1"],
  gameIds: (w) => [w.gameId],
  priority: () => 0,
  rateLimit: () => 600,
};

export function validBody(schema: SchemaName, world: FuzzWorld): Record<string, unknown> {
  const example = BODY_EXAMPLES[schema];
  if (example === undefined) throw new Error(`No valid example of ${schema} for the fuzzer: add one`);
  return example(world);
}

/** The valid payload of an action: its operation's path parameters and body, and its own fields. */
export function validPayload(action: MessageAction, world: FuzzWorld): Record<string, unknown> {
  const op = operationOfAction(action);
  const body = op?.body === undefined ? {} : validBody(op.body, world);
  const payload: Record<string, unknown> = {};
  const names = Object.keys(schemaOf(MESSAGE_PAYLOAD_SCHEMAS[action]).properties ?? {});
  for (const name of names) {
    const value =
      name in body
        ? body[name]
        : name in PATH_EXAMPLES
          ? pathExample(name, world, names)
          : PAYLOAD_ONLY_EXAMPLES[name]?.(world);
    if (value === undefined)
      throw new Error(`No valid example of ${action}'s ${name} for the fuzzer: add one`);
    payload[name] = value;
  }
  return payload;
}

// ---- targets ----

interface SchemaNode {
  properties?: Readonly<Record<string, SchemaNode>>;
  items?: SchemaNode;
}

const schemaOf = (schema: object): SchemaNode => schema as SchemaNode;

/**
 * Every place in a body: the body itself, each node of the valid example, each property the schema
 * knows and the example leaves out, and the first element of each empty array.
 */
export function bodyPointers(schema: SchemaNode | undefined, example: unknown, pointer = ""): string[] {
  const found = [pointer];
  if (Array.isArray(example)) {
    if (example.length === 0 && schema?.items) found.push(`${pointer}/0`);
    example.forEach((item, i) => {
      found.push(...bodyPointers(schema?.items, item, `${pointer}/${i}`));
    });
  } else if (typeof example === "object" && example !== null) {
    const names = new Set([...Object.keys(example), ...Object.keys(schema?.properties ?? {})]);
    for (const name of names) {
      const value = (example as Record<string, unknown>)[name];
      const child = `${pointer}/${name}`;
      if (value === undefined) found.push(child);
      else found.push(...bodyPointers(schema?.properties?.[name], value, child));
    }
  }
  return found;
}

/** The places of one REST operation. */
export function restTargets(op: HostedOperation, world: FuzzWorld): FuzzTarget[] {
  const targets: FuzzTarget[] = Object.keys(op.params).map((name) => `param:${name}` as const);
  for (const name of [...Object.keys(op.query ?? {}), UNKNOWN_QUERY_PARAMETER]) targets.push(`query:${name}`);
  if (op.body !== undefined) {
    const pointers = bodyPointers(schemaOf(schemaRegistry[op.body]), validBody(op.body, world));
    for (const pointer of pointers) targets.push(`body:${pointer}`);
  } else if (op.method === "POST" || op.method === "PUT") {
    // No body is expected, but one can be sent.
    targets.push("body:");
  }
  return targets;
}

/** The places of one WebSocket action's payload (the payload itself included). */
export function payloadTargets(action: MessageAction, world: FuzzWorld): string[] {
  return bodyPointers(schemaOf(MESSAGE_PAYLOAD_SCHEMAS[action]), validPayload(action, world));
}

/** `value` put at `pointer` in a copy of `document` (the document itself for the empty pointer). */
export function withValueAt(document: unknown, pointer: string, value: unknown): unknown {
  if (pointer === "") return value;
  const copy = structuredClone(document) as Record<string, unknown>;
  const tokens = pointer.slice(1).split("/");
  let node = copy;
  for (const token of tokens.slice(0, -1)) node = node[token] as Record<string, unknown>;
  node[tokens.at(-1)!] = value;
  return copy;
}

// ---- requests ----

export interface RestCase {
  operationId: string;
  method: string;
  /** Path and query, already encoded as sent. */
  path: string;
  /** JSON text; undefined: no body. */
  body: string | undefined;
  prefer: boolean;
}

/** The request of `op` with `hostile` at `target` and valid values everywhere else. */
export function restCase(
  op: HostedOperation,
  world: FuzzWorld,
  target: FuzzTarget,
  hostile: HostileValue,
  prefer: boolean,
): RestCase {
  const [where, name] = splitTarget(target);
  const params = Object.keys(op.params);
  const segment = (param: string) =>
    percentEncode(
      where === "param" && name === param
        ? asParameterText(hostile.value)
        : pathExample(param, world, params),
    );
  const path = op.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, param: string) => segment(param));
  const query: string[] = [];
  for (const param of Object.keys(op.query ?? {})) {
    const example = QUERY_EXAMPLES[param];
    if (!(where === "query" && name === param) && example !== undefined) {
      query.push(`${param}=${percentEncode(example(world))}`);
    }
  }
  if (where === "query") query.push(`${name}=${percentEncode(asParameterText(hostile.value))}`);
  let body: unknown;
  if (op.body !== undefined) body = validBody(op.body, world);
  if (where === "body") body = withValueAt(body, name, hostile.value);
  return {
    operationId: op.operationId,
    method: op.method,
    path: query.length > 0 ? `${path}?${query.join("&")}` : path,
    body: body === undefined ? undefined : toJsonText(body),
    prefer: prefer && op.prefer !== undefined,
  };
}

/** The message of `action` with `hostile` at `pointer` of its payload. */
export function actionMessage(
  action: MessageAction,
  world: FuzzWorld,
  pointer: string,
  hostile: HostileValue,
  messageId: string,
): string {
  const payload = withValueAt(validPayload(action, world), pointer, hostile.value);
  return toJsonText({ action, messageId, payload });
}

function splitTarget(target: FuzzTarget): ["param" | "query" | "body", string] {
  const at = target.indexOf(":");
  return [target.slice(0, at) as "param" | "query" | "body", target.slice(at + 1)];
}

export const FUZZED_OPERATIONS = HOSTED_OPERATIONS as readonly HostedOperation[];
export const FUZZED_ACTIONS: readonly MessageAction[] = MESSAGE_ACTIONS;
