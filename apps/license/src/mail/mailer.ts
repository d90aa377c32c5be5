import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Logger } from "@arena/service-kit";
import { createTransport } from "nodemailer";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends one message or rejects; retrying is the mail queue's job. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** Real delivery through SMTP (`smtp://`, `smtps://`; nodemailer URL options such as `?ignoreTLS=true`). */
export function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = createTransport(smtpUrl, { from });
  return {
    async send(message) {
      await transport.sendMail(message);
    },
    close() {
      transport.close();
    },
  };
}

/**
 * Development delivery: each message becomes an .eml file in `dir` (it holds the key, as the real
 * mail would); the log says where, never what.
 */
export function createFileMailer(dir: string, from: string, logger: Logger): Mailer {
  const transport = createTransport({ streamTransport: true, buffer: true, newline: "unix" }, { from });
  const folder = resolve(dir);
  let sequence = 0;
  return {
    async send(message) {
      const info = await transport.sendMail(message);
      await mkdir(folder, { recursive: true });
      const name = `${new Date().toISOString().replaceAll(":", "-")}-${process.pid}-${++sequence}.eml`;
      const file = join(folder, name);
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      logger.info(
        { file, subject: message.subject },
        "development mail written to file (SMTP_URL is not set)",
      );
    },
    close() {
      transport.close();
    },
  };
}
