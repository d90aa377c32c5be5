/**
 * Group commit at the application level: jobs that arrive while `maxConcurrent` batches are
 * already running wait, and the next batch takes as many of them as fit (FIFO). Under light load
 * every job runs alone at once (no added latency); under load, one transaction carries many, so
 * round trips, commits and WAL flushes are shared.
 */
export interface BatchOptions<J> {
  /** Batches running at once (each holds one database connection). */
  maxConcurrent: number;
  /** Jobs per batch at most. */
  maxSize: number;
  /** Whether `job` may join `batch` (e.g. no match or player in common). */
  fits(batch: readonly J[], job: J): boolean;
  /** Runs one batch; must settle every job it was given, and never reject. */
  run(batch: J[]): Promise<void>;
  /** Told the size of each batch as it starts. */
  started?(size: number): void;
}

export class Batches<J> {
  private readonly waiting: J[] = [];
  private running = 0;

  constructor(private readonly options: BatchOptions<J>) {
    if (options.maxConcurrent < 1 || options.maxSize < 1) throw new Error("batches need room for a job");
  }

  submit(job: J): void {
    this.waiting.push(job);
    this.pump();
  }

  /** Jobs waiting for a batch. */
  get backlog(): number {
    return this.waiting.length;
  }

  private pump(): void {
    while (this.running < this.options.maxConcurrent && this.waiting.length > 0) {
      const batch = this.take();
      this.running++;
      this.options.started?.(batch.length);
      void this.options.run(batch).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  /** The first waiting job and every later one that fits with those taken, up to maxSize. */
  private take(): J[] {
    const batch: J[] = [];
    let kept = 0;
    for (const job of this.waiting) {
      if (batch.length < this.options.maxSize && (batch.length === 0 || this.options.fits(batch, job))) {
        batch.push(job);
      } else {
        this.waiting[kept++] = job;
      }
    }
    this.waiting.length = kept;
    return batch;
  }
}
