import {
  fillPath,
  internalOperation,
  LEADERBOARD_READ_BATCH_MAX,
  type LeaderboardReadBatchAnswer,
  leaderboardBatchBodies,
} from "@arena/contracts";
import { Counter, Gauge, type Registry } from "@arena/service-kit";
import { CLIENT_GONE, type UpstreamCall, type WholeAnswer } from "./upstream-call.js";

/**
 * How many calls for one board may be in flight before its next reads wait to go together: one, so
 * under load every read of the board but the first of a burst goes in a batch, and batches are as
 * large as they can be. Two in flight, with or without a minimum batch, did no better within the
 * benchmark machine's noise (around-player 20–29 % of /livez against 22–29 %; gateway README).
 */
export const LEADERBOARD_CALLS_IN_FLIGHT = 1;
/** A read is sent in a batch only with a body this small (an ordinary one is under 100 bytes). */
const BATCHED_BODY_MAX_BYTES = 512;
/**
 * The longest answer one read of a batch may take: a from-top read of 500 entries with ids of
 * 256 characters, about 150 KB, so a batch of 64 is bounded near 10 MB.
 */
const ANSWER_MAX_BYTES_PER_READ = 160 * 1024;
const BATCH_PATH = internalOperation("getLeaderboardBatch").path;
const JSON_CONTENT_TYPE = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i;

/** The calls a batcher makes: stats' answer read whole (`StatsUpstream.callWhole`). */
export type WholeCaller = (call: UpstreamCall, maxBytes?: number) => Promise<WholeAnswer>;

export interface LeaderboardBatchesOptions {
  /** Most reads in one batch; 1 sends every read by itself. */
  maxReads: number;
}

interface Waiting {
  call: UpstreamCall;
  body: Buffer;
  resolve(answer: WholeAnswer): void;
  reject(err: unknown): void;
}

/** One board's reads on this replica: the calls to stats in flight and the reads waiting for them. */
interface Board {
  gameId: string;
  tenantId: string;
  role: string | undefined;
  inFlight: number;
  waiting: Waiting[];
}

/**
 * Leaderboard reads of one board (a tenant's game, for one role) sent to stats together when they
 * come faster than stats answers: while no call for the board is out, a read goes at once by itself
 * (at low load nothing waits); the reads that arrive meanwhile wait for that call to end and then go
 * as one `getLeaderboardBatch` call of up to `maxReads`.
 * Stats answers each read of a batch as the operation itself would; a read it answers with anything
 * but a leaderboard is sent again by itself, so its client gets the operation's whole answer
 * (problem, headers). A batch that fails to reach stats fails each of its reads with that error; one
 * stats refuses whole (an older stats without the operation) sends each read by itself.
 *
 * Only a plain read is batched: a JSON body of at most 512 bytes, no query and no `Prefer`. Any other
 * goes by itself, as every read does with `maxReads` 1. A waiting read whose client has left by the
 * time its turn comes (`UpstreamCall.gone`) is answered `CLIENT_GONE` and not sent: under overload,
 * clients that gave up cost stats nothing, and the reads behind them go sooner.
 */
export class LeaderboardBatches {
  private readonly boards = new Map<string, Board>();
  private reads?: Counter<"sent">;

  constructor(
    private readonly callWhole: WholeCaller,
    private readonly options: LeaderboardBatchesOptions,
  ) {}

  /** Reads waiting for a call of their board to end. */
  get waiting(): number {
    let n = 0;
    for (const board of this.boards.values()) n += board.waiting.length;
    return n;
  }

  /** Registers the batcher's metrics (once, with the app's registry). */
  instrument(registry: Registry): void {
    const batches = this;
    new Gauge({
      name: "gateway_leaderboard_reads_waiting",
      help: "Leaderboard reads waiting for a call to stats of their board to end, to go together in the next",
      registers: [registry],
      collect() {
        this.set(batches.waiting);
      },
    });
    this.reads = new Counter({
      name: "gateway_leaderboard_upstream_reads_total",
      help: "Leaderboard reads sent to stats, by how: alone (a call of its own), batched (answered in a batch), again (batched, then sent alone for its whole answer); dropped: not sent, its client had left while it waited",
      labelNames: ["sent"] as const,
      registers: [registry],
    });
  }

  /** Stats' answer to the leaderboard read `call` of the game `gameId`, alone or in a batch. */
  read(call: UpstreamCall, gameId: string): Promise<WholeAnswer> {
    const body = batchableBody(call);
    if (this.options.maxReads < 2 || body === undefined) return this.alone(call);
    const key = `${call.tenantId}\u0000${call.role ?? ""}\u0000${gameId}`;
    let board = this.boards.get(key);
    if (board === undefined) {
      board = { gameId, tenantId: call.tenantId, role: call.role, inFlight: 0, waiting: [] };
      this.boards.set(key, board);
    }
    const answer = new Promise<WholeAnswer>((resolve, reject) =>
      board.waiting.push({ call, body, resolve, reject }),
    );
    if (board.inFlight < LEADERBOARD_CALLS_IN_FLIGHT) this.sendWaiting(key, board);
    return answer;
  }

  /** A call for the board ended: the reads that waited meanwhile go now, together. */
  private callEnded(key: string, board: Board): void {
    board.inFlight--;
    this.sendWaiting(key, board);
  }

  /**
   * The board's waiting reads, up to `maxReads` of those whose clients are still there, in one call:
   * alone when there is one, else a batch. A board with nothing to send and no call out is forgotten.
   */
  private sendWaiting(key: string, board: Board): void {
    const reads = this.takeWaiting(board);
    if (reads.length === 0) {
      if (board.inFlight === 0) this.boards.delete(key);
      return;
    }
    board.inFlight++;
    const done = () => this.callEnded(key, board);
    if (reads.length === 1) {
      const [only] = reads as [Waiting];
      const answer = this.alone(only.call);
      answer.then(only.resolve, only.reject);
      answer.then(done, done);
    } else {
      this.batch(board, reads).then(done, done);
    }
  }

  /** Takes up to `maxReads` waiting reads that are still wanted, in order; answers the gone ones it passes. */
  private takeWaiting(board: Board): Waiting[] {
    const max = Math.min(this.options.maxReads, LEADERBOARD_READ_BATCH_MAX);
    const taken: Waiting[] = [];
    let i = 0;
    for (; i < board.waiting.length && taken.length < max; i++) {
      const read = board.waiting[i]!;
      if (read.call.gone?.() === true) {
        this.reads?.inc({ sent: "dropped" });
        read.resolve(CLIENT_GONE);
      } else taken.push(read);
    }
    board.waiting.splice(0, i);
    return taken;
  }

  private alone(call: UpstreamCall): Promise<WholeAnswer> {
    this.reads?.inc({ sent: "alone" });
    return this.callWhole(call);
  }

  /** One call for `reads`; settles each of them, never rejects. */
  private async batch(board: Board, reads: Waiting[]): Promise<void> {
    const first = reads[0]!.call;
    let answer: WholeAnswer;
    try {
      answer = await this.callWhole(
        {
          method: "POST",
          path: fillPath(BATCH_PATH, { gameId: board.gameId }),
          tenantId: board.tenantId,
          ...(board.role === undefined ? {} : { role: board.role }),
          // Stats logs the batch under its first read's request id.
          requestId: first.requestId,
          body: batchBody(reads),
          contentType: "application/json",
        },
        reads.length * ANSWER_MAX_BYTES_PER_READ,
      );
    } catch (err) {
      // Stats unreachable, late or failing: what each read alone would have met.
      for (const read of reads) read.reject(err);
      return;
    }
    const bodies = bodiesOf(answer, reads.length);
    for (const [i, read] of reads.entries()) {
      const body = bodies?.[i];
      if (body !== undefined) {
        this.reads?.inc({ sent: "batched" });
        read.resolve({ status: 200, headers: answer.headers, body });
      } else {
        this.reads?.inc({ sent: "again" });
        this.callWhole(read.call).then(read.resolve, read.reject);
      }
    }
  }
}

/** The body of a read that may go in a batch, else undefined. */
function batchableBody(call: UpstreamCall): Buffer | undefined {
  const { body } = call;
  if (call.method !== "POST" || call.prefer !== undefined || call.path.includes("?")) return undefined;
  if (!Buffer.isBuffer(body) || body.length === 0 || body.length > BATCHED_BODY_MAX_BYTES) return undefined;
  if (!JSON_CONTENT_TYPE.test(call.contentType ?? "application/json")) return undefined;
  return body;
}

/**
 * `{"reads":[…]}` with each read's body as its bytes: the gateway's parser accepted each as JSON, so
 * they are embedded as they came (a body stats cannot read in this place fails the batch, and each
 * read then goes alone).
 */
function batchBody(reads: readonly Waiting[]): Buffer {
  const parts: Buffer[] = [OPEN];
  for (const [i, read] of reads.entries()) {
    if (i > 0) parts.push(COMMA);
    parts.push(read.body);
  }
  parts.push(CLOSE);
  return Buffer.concat(parts);
}
const OPEN = Buffer.from('{"reads":[');
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]}");

/**
 * Each read's leaderboard bytes from a batch answer (undefined for a read that failed), taken from
 * their lines as they are (`leaderboardBatchBodies`); an answer not laid out so is parsed, and one
 * that is not the batch's answer gives undefined (each read then goes alone).
 */
function bodiesOf(answer: WholeAnswer, reads: number): Array<Buffer | undefined> | undefined {
  if (answer.status !== 200) return undefined;
  const laidOut = leaderboardBatchBodies(answer.body, reads);
  if (laidOut !== undefined) return laidOut;
  try {
    const parsed = JSON.parse(answer.body.toString("utf8")) as Partial<LeaderboardReadBatchAnswer>;
    if (!Array.isArray(parsed.answers) || parsed.answers.length !== reads) return undefined;
    return parsed.answers.map((one) =>
      one?.status === 200 && one.body !== undefined ? Buffer.from(JSON.stringify(one.body)) : undefined,
    );
  } catch {
    return undefined;
  }
}
