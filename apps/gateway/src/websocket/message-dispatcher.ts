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
  PAYLOAD_POINTER,
  responsePayloadOf,
} from "./action-mapping.js";
import { CLOSE, type Connection } from "./connection.js";
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
  /** Malformed messages in a row after which the connection is closed (1008). */
  maxMalformedInRow: number;
}

/** The action, answer action and messageId of a message, read as far as they can be. */
interface Envelope {
  action: MessageAction | undefined;
  answerAction: string;
  messageId: string | null;
}

/** A frame read: a valid message's action and payload, or the error a malformed one is answered with. */
type Frame =
  | { envelope: Envelope; action: MessageAction; payload: Record<string, unknown>; malformed?: undefined }
  | { envelope: Envelope; malformed: MessageError };

const UNREADABLE: Envelope = { action: undefined, answerAction: UNREADABLE_ACTION_RESPONSE, messageId: null };
const KNOWN_ACTIONS: ReadonlySet<string> = new Set(MESSAGE_ACTIONS);

/**
 * What a message means: each frame is counted against the tenant's rate limit, then parsed and
 * validated against the contracts, then run through the same role check and stats call as REST
 * (the action table, via action-mapping), and answered in Idem's envelope. A frame never throws;
 * every one is answered.
 *
 * Every frame, readable or not, passes the in-flight limit and is one request of the tenant's
 * budget, counted before it is read: a flood of frames that cannot be read spends its sender's
 * budget, not the gateway's CPU that the other tenants share. A connection that sends
 * `maxMalformedInRow` malformed frames in a row is closed with 1008.
 */
export class MessageDispatcher {
  constructor(private readonly deps: MessageDispatcherDeps) {}

  async receive(conn: Connection, data: RawData, isBinary: boolean): Promise<void> {
    if (conn.closeReason !== undefined) return;
    const refusal = this.refusalOf(conn);
    if (refusal !== undefined) {
      this.answerError(conn, this.read(conn, data, isBinary).envelope, refusal);
      this.closeIfMalformedTooOften(conn);
      return;
    }
    conn.inFlight += 1;
    let envelope = UNREADABLE;
    try {
      const admitted = await this.admit(conn);
      const frame = this.read(conn, data, isBinary);
      envelope = frame.envelope;
      if (admitted !== undefined) {
        this.answerError(conn, envelope, admitted);
        return;
      }
      if (frame.malformed !== undefined) {
        this.answerError(conn, envelope, frame.malformed);
        return;
      }
      const payload = await this.handle(conn, frame.action, frame.payload);
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
      this.closeIfMalformedTooOften(conn);
    }
  }

  /** After the answer to the last of too many malformed frames in a row: close 1008. */
  private closeIfMalformedTooOften(conn: Connection): void {
    if (conn.malformedInRow >= this.deps.maxMalformedInRow) {
      this.deps.connections.eject(conn, CLOSE.policy, "too many malformed messages", "malformed");
    }
  }

  /** Why a message is refused before it is counted; undefined when it may be. */
  private refusalOf(conn: Connection): MessageError | undefined {
    if (this.deps.connections.isDraining) return { code: 503, message: "Shutting down; reconnect" };
    const { maxInFlight } = this.deps;
    if (conn.inFlight >= maxInFlight) {
      return { code: 429, message: `At most ${maxInFlight} messages may await an answer on one connection` };
    }
    return undefined;
  }

  /** Counts the message against the tenant's budget: the refusal (429, 503), or undefined. */
  private async admit(conn: Connection): Promise<MessageError | undefined> {
    try {
      await this.deps.rateLimit.admit(conn.principal.tenantId);
      return undefined;
    } catch (err) {
      return this.errorOf(err, conn, undefined);
    }
  }

  /** Parses and validates a frame, and keeps the connection's count of malformed frames in a row. */
  private read(conn: Connection, data: RawData, isBinary: boolean): Frame {
    const frame = readFrame(data, isBinary);
    conn.malformedInRow = frame.malformed === undefined ? 0 : conn.malformedInRow + 1;
    return frame;
  }

  /** Runs one valid message: the role check, then the gateway's own answer or stats'; throws its error. */
  private async handle(
    conn: Connection,
    action: MessageAction,
    payload: Record<string, unknown>,
  ): Promise<MessageResponsePayloads[MessageAction]> {
    const { principal } = conn;
    const op = operationFor(action);
    if (op !== undefined) assertRole(op.roles, principal.role);
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

/** A frame read: not JSON text, an invalid envelope or payload is malformed (answered 400). */
function readFrame(data: RawData, isBinary: boolean): Frame {
  if (isBinary) {
    return {
      envelope: UNREADABLE,
      malformed: { code: 400, message: "Binary frames are not accepted: send each message as JSON text" },
    };
  }
  let message: unknown;
  try {
    message = JSON.parse(rawText(data));
  } catch (err) {
    return {
      envelope: UNREADABLE,
      malformed: {
        code: 400,
        message: `The message is not valid JSON: ${(err as Error).message}`,
        errors: [{ pointer: "", detail: "is not valid JSON" }],
      },
    };
  }
  const envelope = readEnvelope(message);
  if (!validateClientMessage(message)) {
    return {
      envelope,
      malformed: errorOfThrown(AppError.validation(toFieldErrors(validateClientMessage.errors))),
    };
  }
  const action = message.action as MessageAction;
  const payload = (message.payload ?? {}) as Record<string, unknown>;
  const validate = messagePayloadValidators[action];
  if (!validate(payload)) {
    return {
      envelope,
      malformed: errorOfThrown(AppError.validation(toFieldErrors(validate.errors, PAYLOAD_POINTER))),
    };
  }
  return { envelope, action, payload };
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
