import { createLogger } from "@arena/service-kit";
import { describe, expect, it } from "@jest/globals";
import { MailQueue } from "./mail-queue.js";
import type { Mailer, MailMessage } from "./mailer.js";

const logger = createLogger({ name: "test", level: "silent" });
const message: MailMessage = { to: "a@example.com", subject: "s", text: "t" };

function flakyMailer(failures: number): Mailer & { calls: number } {
  return {
    calls: 0,
    async send() {
      this.calls++;
      if (this.calls <= failures) throw new Error("smtp down");
    },
    close() {},
  };
}

describe("mail queue", () => {
  it("retries a failed send until it succeeds", async () => {
    const mailer = flakyMailer(2);
    const queue = new MailQueue({ mailer, logger, attempts: 5, baseDelayMs: 1 });
    queue.enqueue(message, {});
    await queue.drain();
    expect(mailer.calls).toBe(3);
  });

  it("gives up after the configured number of attempts", async () => {
    const mailer = flakyMailer(100);
    const queue = new MailQueue({ mailer, logger, attempts: 3, baseDelayMs: 1 });
    queue.enqueue(message, {});
    await queue.drain();
    expect(mailer.calls).toBe(3);
  });

  it("skips the waits between retries while draining for shutdown", async () => {
    const mailer = flakyMailer(3);
    const queue = new MailQueue({ mailer, logger, attempts: 4, baseDelayMs: 60_000 });
    queue.enqueue(message, {});
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = Date.now();
    await queue.drain();
    expect(mailer.calls).toBe(4);
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});
