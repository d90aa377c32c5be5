import type { Counter, Logger } from "@arena/service-kit";
import type { Mailer, MailMessage } from "./mailer.js";

export interface MailQueueOptions {
  mailer: Mailer;
  logger: Logger;
  attempts: number;
  /** First retry delay; each further retry waits twice as long. */
  baseDelayMs?: number;
  sent?: Counter<"outcome">;
}

/**
 * Sends mail after the request has been answered, so an SMTP server's latency or failure neither
 * delays the 202 nor tells a caller anything. The registration is already committed; a send that
 * fails every attempt is logged as an error and counted (`license_mails_total{outcome="failed"}`),
 * and the person can simply register again to get a new key.
 */
export class MailQueue {
  private readonly inFlight = new Set<Promise<void>>();
  private draining = false;
  private readonly wakeUps = new Set<() => void>();

  constructor(private readonly options: MailQueueOptions) {}

  /** `context` is logged with the outcome; it must not contain the message (which holds a key). */
  enqueue(message: MailMessage, context: Record<string, unknown>): void {
    const job = this.deliver(message, context).finally(() => this.inFlight.delete(job));
    this.inFlight.add(job);
  }

  /** Waits for every queued message; remaining retries run without waiting (used at shutdown). */
  async drain(): Promise<void> {
    this.draining = true;
    for (const wakeUp of this.wakeUps) wakeUp();
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    this.draining = false;
  }

  private async deliver(message: MailMessage, context: Record<string, unknown>): Promise<void> {
    const { mailer, logger, attempts, baseDelayMs = 1_000, sent } = this.options;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        await mailer.send(message);
        sent?.inc({ outcome: "sent" });
        logger.info({ ...context, attempt }, "mail sent");
        return;
      } catch (err) {
        const last = attempt === attempts;
        logger[last ? "error" : "warn"](
          { ...context, attempt, err: (err as Error).message },
          "mail send failed",
        );
        if (last) break;
        if (!this.draining) await this.pause(baseDelayMs * 2 ** (attempt - 1));
      }
    }
    sent?.inc({ outcome: "failed" });
  }

  /** Waits before a retry; drain() cuts the wait short. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wakeUp = () => {
        clearTimeout(timer);
        this.wakeUps.delete(wakeUp);
        resolve();
      };
      const timer = setTimeout(wakeUp, ms);
      timer.unref();
      this.wakeUps.add(wakeUp);
    });
  }
}
