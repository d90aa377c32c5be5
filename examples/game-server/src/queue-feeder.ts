import type { ArenaClient } from "@arena/client";
import { ArenaApiError } from "@arena/client";
import type { Population } from "./population.js";

export interface QueueFeederOptions {
  client: ArenaClient;
  gameId: string;
  population: Population;
  /** Waiting players to keep in the queue now (asked before each submission). */
  target(): number;
  /** A submission went through. */
  onQueued(count: number): void;
  onError(err: unknown): void;
  intervalMs?: number;
}

/**
 * Keeps the queue topped up: every `intervalMs`, submits as many players as the queue lacks, one
 * submission at a time. A submission is all or nothing on the platform's side, so one whose answer
 * never came (the gateway restarting mid-request) is sent again unchanged: a 409 then means the
 * first one went through (these players are queued by nobody else).
 */
export class QueueFeeder {
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  /** A submission whose outcome is unknown: sent again as it is before anything new. */
  private unsettled: string[] | undefined;

  constructor(private readonly options: QueueFeederOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.topUp(), this.options.intervalMs ?? 100);
    void this.topUp();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async topUp(): Promise<void> {
    const { population } = this.options;
    if (this.busy) return;
    const missing = this.options.target() - population.waitingCount;
    if (this.unsettled === undefined && missing <= 0) return;
    this.busy = true;
    const batch = this.unsettled ?? population.take(missing);
    try {
      await this.submit(batch);
      this.unsettled = undefined;
      population.queued(batch);
      this.options.onQueued(batch.length);
    } catch (err) {
      if (err instanceof ArenaApiError && err.status < 500 && err.status !== 429) {
        // Refused as such (a 400 or 404): these players were not queued and will not be with this request.
        this.unsettled = undefined;
        population.notQueued(batch);
      } else {
        this.unsettled = batch;
      }
      this.options.onError(err);
    } finally {
      this.busy = false;
    }
  }

  private async submit(batch: string[]): Promise<void> {
    const { client, gameId } = this.options;
    const resent = this.unsettled !== undefined;
    try {
      await client.addPlayers({ gameId, body: { players: batch.map((playerId) => ({ playerId })) } });
    } catch (err) {
      if (resent && err instanceof ArenaApiError && err.status === 409) return;
      throw err;
    }
  }
}
