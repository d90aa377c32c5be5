import {
  compile,
  expressPath,
  HOSTED_OPERATIONS,
  type HostedOperation,
  INTERNAL_OPERATIONS,
  type InternalOperation,
  type SchemaName,
  validatorFor,
} from "@arena/contracts";
import { AppError, optionalJsonBody, requireJsonBody, validateOrThrow } from "@arena/service-kit";
import { type Request, type RequestHandler, type Response, Router } from "express";
import { type Caller, callerOf } from "../access/service-auth.js";
import { wantsRepresentation } from "./prefer.js";

/**
 * Stats serves the action table: every hosted operation (and every internal one the gateway calls)
 * is mounted here from its table entry, with the entry's rules: path and query parameters checked
 * against its schemas, the caller's role against its roles, the body against its schema, and the
 * answer's status taken from it (204, or the body with `Prefer: return=representation`). The
 * domains only supply handlers, one per operation id; a handler missing from the map, or one the
 * table does not list, does not compile.
 */

type Hosted = (typeof HOSTED_OPERATIONS)[number];
type Internal = (typeof INTERNAL_OPERATIONS)[number];
type TableOperation = Hosted | Internal;
export type OperationId = TableOperation["operationId"];

type OperationOf<Id extends OperationId> = Extract<TableOperation, { operationId: Id }>;

/** A validated call: path parameters by name, the query's declared parameters, the body. */
export interface OperationCall<Params extends string = string> {
  caller: Caller;
  params: Readonly<Record<Params, string>>;
  query: Readonly<Record<string, unknown>>;
  body: unknown;
}

/** What an operation answers: its body (`undefined` for an operation that answers 204). */
export type OperationHandler<Params extends string = string> = (
  call: OperationCall<Params>,
) => Promise<unknown>;

export type OperationHandlers = {
  [Id in OperationId]: OperationHandler<Extract<keyof OperationOf<Id>["params"], string>>;
};

/** One domain's share of the handlers (the app combines them into `OperationHandlers`). */
export type SomeOperationHandlers = Partial<OperationHandlers>;

/** An entry of either table, as the mounter reads it. */
export type MountedOperation = Pick<
  HostedOperation,
  "operationId" | "method" | "path" | "params" | "answers"
> &
  Partial<Pick<HostedOperation, "roles" | "query" | "prefer" | "optionalBody">> & { body?: SchemaName };

/** Every operation of both tables, as routes on one router. */
export function operationRoutes(handlers: OperationHandlers): Router {
  const router = Router();
  const operations: readonly MountedOperation[] = [
    ...(HOSTED_OPERATIONS as readonly HostedOperation[]),
    ...(INTERNAL_OPERATIONS as readonly InternalOperation[]),
  ];
  for (const op of operations) {
    const handler = handlers[op.operationId as OperationId] as OperationHandler;
    const route = router.route(expressPath(op.path));
    const serve = operationHandler(op, handler);
    if (op.method === "GET") route.get(serve);
    else if (op.method === "POST") route.post(serve);
    else if (op.method === "PUT") route.put(serve);
    else route.delete(serve);
  }
  return router;
}

function operationHandler(op: MountedOperation, handler: OperationHandler): RequestHandler {
  const run = checkedOperation(op, handler);
  return async (req: Request, res: Response) => {
    const query = op.query ? queryValues(op, req.query) : undefined;
    const params = { ...req.params } as Record<string, string>;
    answer(op, req, res, await run(callerOf(res), params, query, () => bodyOf(op, req)));
  };
}

/** A call of an operation, read off its request (or a batch's item): checked, then handled. */
export type CheckedOperation = (
  caller: Caller,
  params: Record<string, string>,
  query: Record<string, unknown> | undefined,
  body: () => unknown,
) => Promise<unknown>;

/**
 * The operation's rules around its handler, in order: the caller's role, the path parameters, the
 * query's, the body (read only once those passed); each failure is the AppError its route answers.
 */
export function checkedOperation(op: MountedOperation, handler: OperationHandler): CheckedOperation {
  const checkParams = compile<Record<string, string>>(objectSchema(op.params, false));
  const checkQuery = op.query ? compile<Record<string, unknown>>(objectSchema(op.query, true)) : undefined;
  const checkBody = op.body === undefined ? undefined : validatorFor(op.body);
  return async (caller, rawParams, rawQuery, readBody) => {
    requireRole(op, caller);
    const params = canonicalParams(op, validateOrThrow(checkParams, rawParams));
    const query = checkQuery ? validateOrThrow(checkQuery, rawQuery ?? {}) : {};
    const body = checkBody ? validateOrThrow(checkBody, readBody()) : undefined;
    return handler({ caller, params, query, body });
  };
}

/** Path parameters are all required; query parameters are optional, and no others are taken. */
function objectSchema(properties: Readonly<Record<string, object>>, optional: boolean): object {
  return {
    type: "object",
    properties,
    ...(optional ? {} : { required: Object.keys(properties) }),
    additionalProperties: false,
  };
}

function requireRole(op: MountedOperation, caller: Caller): void {
  if (op.roles && !op.roles.includes(caller.role)) {
    throw new AppError("FORBIDDEN", `This operation needs the ${op.roles.join(" or ")} role`);
  }
}

/** UUIDs are case-insensitive; stats stores and compares them in lower case. */
function canonicalParams(op: MountedOperation, params: Record<string, string>): Record<string, string> {
  for (const [name, schema] of Object.entries(op.params)) {
    if ((schema as { format?: string }).format === "uuid") params[name] = params[name]!.toLowerCase();
  }
  return params;
}

/**
 * The query string as typed values for the operation's schema: a boolean or integer parameter is
 * read from its text (what does not read stays text, and the schema names it); a repeated string
 * parameter is one comma-separated list (`?seasons=S1&seasons=S2` = `?seasons=S1,S2`).
 */
function queryValues(op: MountedOperation, query: Request["query"]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(query)) {
    const type = (op.query?.[name] as { type?: string } | undefined)?.type;
    let value: unknown = raw;
    if (Array.isArray(raw) && type === "string") value = raw.join(",");
    else if (type === "boolean" && (raw === "true" || raw === "false")) value = raw === "true";
    else if (type === "integer" && typeof raw === "string" && /^-?[0-9]{1,15}$/.test(raw))
      value = Number(raw);
    values[name] = value;
  }
  return values;
}

/** The body an operation takes: required, or `{}` when the table lets it be left out. */
function bodyOf(op: MountedOperation, req: Request): unknown {
  return op.optionalBody ? optionalJsonBody(req, {}) : requireJsonBody(req);
}

/** The table's success status: 204 or the representation for `prefer` operations, else its one answer. */
function answer(op: MountedOperation, req: Request, res: Response, body: unknown): void {
  if (op.prefer) {
    if (!wantsRepresentation(req.get("prefer"))) {
      res.status(op.prefer.plain).end();
      return;
    }
    res.setHeader("Preference-Applied", "return=representation");
    res.status(op.prefer.representation).json(body);
    return;
  }
  const [status, schema] = Object.entries(op.answers)[0]!;
  if (schema === null) res.status(Number(status)).end();
  else if (body instanceof JsonText) res.status(Number(status)).type("json").send(body.text);
  else res.status(Number(status)).json(body);
}

/**
 * An answer a handler serialized itself, because its layout matters to the reader (the answer of
 * `getLeaderboardBatch`): sent as it is, with the JSON content type `res.json` gives.
 */
export class JsonText {
  constructor(readonly text: string) {}
}
