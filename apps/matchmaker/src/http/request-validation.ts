import {
  type FieldError,
  type MatchmakingRequest,
  toFieldErrors,
  validateMatchmakingRequest,
  validateMatchmakingRequestFirstError,
  validateTicket,
  validateTicketFirstError,
} from "@arena/contracts";
import { AppError, MAX_FIELD_ERRORS } from "@arena/service-kit";

/** Tickets at most this wide get every error listed; wider ones (a hostile 1M-entry list) only the first. */
const SMALL_TICKET_ENTRIES = 64;

/**
 * Schema validation of a matchmaking request whose cost and answer are bounded by the body's size,
 * not by how many values in it are wrong. A valid body costs one pass of a validator that stops at
 * the first error; an invalid one is walked again to list at most MAX_FIELD_ERRORS field errors
 * (every error of the game mode and of small tickets, the first of wide ones) plus their count.
 */
export function validateMatchmakingBody(body: unknown): MatchmakingRequest {
  if (validateMatchmakingRequestFirstError(body)) return body;
  const errors = new ErrorList();
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    errors.add(toFieldErrors(validateMatchmakingRequestFirstError.errors));
    throw errors.toProblem();
  }
  const request = body as Record<string, unknown>;
  const tickets = request.tickets;
  // Everything but the tickets is small: validate it with every error listed.
  const head: Record<string, unknown> = {};
  for (const key of ["game_mode", "now", "explain"]) if (key in request) head[key] = request[key];
  head.tickets = Array.isArray(tickets) ? [] : tickets;
  if (!validateMatchmakingRequest(head)) errors.add(toFieldErrors(validateMatchmakingRequest.errors));
  if (Array.isArray(tickets)) {
    for (let i = 0; i < tickets.length; i++) {
      const ticket = tickets[i];
      if (validateTicketFirstError(ticket)) continue;
      if (errors.full) {
        errors.countMore(1);
        continue;
      }
      const all = isSmallTicket(ticket) && !validateTicket(ticket);
      errors.add(
        toFieldErrors(all ? validateTicket.errors : validateTicketFirstError.errors, `/tickets/${i}`),
      );
    }
  }
  // Unreachable while the walk covers every validated member; kept so a schema change cannot yield an empty 400.
  if (errors.size === 0) errors.add(toFieldErrors(validateMatchmakingRequestFirstError.errors));
  throw errors.toProblem();
}

function isSmallTicket(ticket: unknown): boolean {
  if (ticket === null || typeof ticket !== "object" || Array.isArray(ticket)) return true;
  const t = ticket as Record<string, unknown>;
  const width = (v: unknown) =>
    v === null || typeof v !== "object" ? 0 : Array.isArray(v) ? v.length : Object.keys(v).length;
  return (
    width(t.servers) <= SMALL_TICKET_ENTRIES && width(t.exactEqualityConstraints) <= SMALL_TICKET_ENTRIES
  );
}

/**
 * Field errors as they are found, the first MAX_FIELD_ERRORS kept and the rest only counted, so a
 * hostile body never builds a long list; the kit's `AppError.validation` writes the problem.
 */
export class ErrorList {
  private readonly list: FieldError[] = [];
  private more = 0;

  get full(): boolean {
    return this.list.length >= MAX_FIELD_ERRORS;
  }

  add(errors: readonly FieldError[]): void {
    for (const e of errors) {
      if (this.full) this.more++;
      else this.list.push(e);
    }
  }

  countMore(n: number): void {
    this.more += n;
  }

  get size(): number {
    return this.list.length;
  }

  toProblem(): AppError {
    return AppError.validation(this.list, undefined, this.list.length + this.more);
  }
}
