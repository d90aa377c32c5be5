import { randomUUID } from "node:crypto";
import {
  MESSAGE_ACTIONS,
  type MessageAction,
  type MessagePayload,
  type MessageResponsePayloads,
  messagePayloadValidators,
  responseAction,
  type ServerErrorMessage,
  type ServerResponse,
  toFieldErrors,
  UNREADABLE_ACTION_RESPONSE,
  validateClientMessage,
} from "@arena/contracts";
import { AppError, type Logger } from "@arena/service-kit";
import type { RawData } from "ws";
import { assertRole } from "../access/authentication.js";
import type { StatsUpstream } from "../routing/stats-proxy.js";
import {
  actionRequestOf,
  errorOfAnswer,
  errorOfThrown,
  type MessageError,
  operationFor,
  responsePayloadOf,
} from "./action-mapping.js";
import type { Connection } from "./connection.js";
import type { ConnectionRegistry } from "./connection-registry.js";
import type { WebSocketMetrics } from "./websocket-metrics.js";

type SubscribeAnswer = MessageResponsePayloads["subscribe"];

export interface MessageDispatcherDeps {
  connections: ConnectionRegistry;
  upstream: StatsUpstream;
  /** The tenant's request budget, shared with REST: one message counts as one request. */
  rateLimit: { admit(tenantId: string): Promise<unknown> };
  /** `subscribe`, the one action the gateway answers itself (the push listener's). */
  subscribe(conn: Connection, payload: MessagePayload<"subscribe">): Promise<SubscribeAnswer>;
  logger: Logger;
  metrics: WebSocketMetrics;
  /** Messages one connection may have awaiting an answer; more are answered 429. */
  maxInFlight: number;
}

/** The action, answer action and messageId of a message, read as far as they can be. */
interface Envelope {
  action: MessageAction | undefined;
  answerAction: string;
  messageId: string | null;
}

const UNREADABLE: Envelope = { action: undefined, answerAction: UNREADABLE_ACTION_RESPONSE, messageId: null };
const KNOWN_ACTIONS: ReadonlySet<string> = new Set(MESSAGE_ACTIONS);

/**
 * What a message means: each frame is parsed and validated against the contracts, then run through
 * the same role check, tenant rate limit and stats call as REST (the action table, via
 * action-mapping), and answered in Idem's envelope. A frame never throws; every one is answered.
 */
export class MessageDispatcher {
  constructor(private readonly deps: MessageDispatcherDeps) {}

  async receive(conn: Connection, data: RawData, isBinary: boolean): Promise<void> {
    if (conn.closeReason !== undefined) return;
    const read = readMessage(data, isBinary);
    if ("error" in read) {
      this.answerError(conn, UNREADABLE, read.error);
      return;
    }
    const envelope = readEnvelope(read.message);
    const refusal = this.refusalOf(conn);
    if (refusal !== undefined) {
      this.answerError(conn, envelope, refusal);
      return;
    }
    conn.inFlight += 1;
    try {
      const payload = await this.handle(conn, read.message);
      this.deps.metrics.messages.inc({ action: envelope.action ?? "unknown", outcome: "ok" });
      const answer: ServerResponse = {
        action: envelope.answerAction,
        messageId: envelope.messageId,
        payload,
      };
      this.deps.connections.send(conn, JSON.stringify(answer));
    } catch (err) {
      this.answerError(conn, envelope, this.errorOf(err, conn, envelope.action));
    } finally {
      conn.inFlight -= 1;
      this.deps.connections.settled(conn);
    }
  }

  /** Why a readable message is refused before it runs; undefined when it may run. */
  private refusalOf(conn: Connection): MessageError | undefined {
    if (this.deps.connections.isDraining) return { code: 503, message: "Shutting down; reconnect" };
    const { maxInFlight } = this.deps;
    if (conn.inFlight >= maxInFlight) {
      return { code: 429, message: `At most ${maxInFlight} messages may await an answer on one connection` };
    }
    return undefined;
  }

  /** Validates and runs one message; answers the response payload or throws. */
  private async handle(conn: Connection, message: unknown): Promise<MessageResponsePayloads[MessageAction]> {
    if (!validateClientMessage(message))
      throw AppError.validation(toFieldErrors(validateClientMessage.errors));
    const action = message.action as MessageAction;
    const payload = (message.payload ?? {}) as Record<string, unknown>;
    const validate = messagePayloadValidators[action];
    if (!validate(payload)) throw AppError.validation(toFieldErrors(validate.errors, "/payload"));
    const { principal } = conn;
    const op = operationFor(action);
    if (op !== undefined) assertRole(op.roles, principal.role);
    await this.deps.rateLimit.admit(principal.tenantId);
    if (action === "subscribe") return this.deps.subscribe(conn, payload as MessagePayload<"subscribe">);
    const answer = await this.deps.upstream.callAndRead({
      ...actionRequestOf(action, payload),
      tenantId: principal.tenantId,
      role: principal.role,
      requestId: randomUUID(),
    });
    const error = errorOfAnswer(answer);
    if (error !== undefined) throw new MessageFailed(error);
    return responsePayloadOf(action, payload, answer.body);
  }

  /** The error a failed message is answered with; a fault of the gateway's own is logged. */
  private errorOf(err: unknown, conn: Connection, action: MessageAction | undefined): MessageError {
    if (err instanceof MessageFailed) return err.error;
    const error = errorOfThrown(err);
    if (error.code >= 500 && !(err instanceof AppError)) {
      this.deps.logger.error({ err, connectionId: conn.id, action }, "WebSocket message failed");
    }
    return error;
  }

  private answerError(conn: Connection, envelope: Envelope, error: MessageError): void {
    this.deps.metrics.messages.inc({
      action: envelope.action ?? "unknown",
      outcome: error.code >= 500 ? "server_error" : "client_error",
    });
    const answer: ServerErrorMessage = {
      action: envelope.answerAction,
      messageId: envelope.messageId,
      error,
    };
    this.deps.connections.send(conn, JSON.stringify(answer));
  }
}

/** A message error that stats answered (a problem), as opposed to one the gateway raised. */
class MessageFailed extends Error {
  constructor(readonly error: MessageError) {
    super(error.message);
  }
}

/** A frame as parsed JSON, or the error it is answered with when it is not JSON text. */
function readMessage(data: RawData, isBinary: boolean): { message: unknown } | { error: MessageError } {
  if (isBinary) {
    return {
      error: { code: 400, message: "Binary frames are not accepted: send each message as JSON text" },
    };
  }
  try {
    return { message: JSON.parse(rawText(data)) };
  } catch (err) {
    return {
      error: {
        code: 400,
        message: `The message is not valid JSON: ${(err as Error).message}`,
        errors: [{ pointer: "", detail: "is not valid JSON" }],
      },
    };
  }
}

function readEnvelope(message: unknown): Envelope {
  const m = (typeof message === "object" && message !== null ? message : {}) as Record<string, unknown>;
  const action =
    typeof m.action === "string" && KNOWN_ACTIONS.has(m.action) ? (m.action as MessageAction) : undefined;
  const messageId = typeof m.messageId === "string" && m.messageId.length <= 256 ? m.messageId : null;
  return { action, answerAction: action ? responseAction(action) : UNREADABLE_ACTION_RESPONSE, messageId };
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data as ArrayBuffer).toString("utf8");
}
