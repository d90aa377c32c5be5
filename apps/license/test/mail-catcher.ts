import type { AddressInfo } from "node:net";
import { eventually } from "@arena/service-kit/testing";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string[];
  raw: string;
  /** The decoded text body. */
  text: string;
}

/** A real SMTP server on 127.0.0.1 that keeps every message it receives. */
export interface MailCatcher {
  /** SMTP_URL for the app: plain SMTP, no STARTTLS. */
  url: string;
  messages: ReceivedMail[];
  /** The messages to `to`, once there are at least `count` of them. */
  waitFor(to: string, count?: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startMailCatcher(): Promise<MailCatcher> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        messages.push({
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          raw,
          text: textBody(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}?ignoreTLS=true`,
    messages,
    waitFor(to, count = 1, timeoutMs = 5_000) {
      const found = () => messages.filter((m) => m.to.includes(to.toLowerCase()));
      return eventually(() => (found().length >= count ? found() : undefined), {
        timeoutMs,
        everyMs: 20,
        what: () => `${count} mail(s) to ${to} (got ${found().length})`,
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The body of a single-part text mail, quoted-printable decoded when it is encoded so. */
function textBody(raw: string): string {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = raw.slice(0, split);
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, "");
  if (!/content-transfer-encoding:\s*quoted-printable/i.test(headers)) return body;
  const bytes = body
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

/** The license key a mail carries. */
export function keyInMail(mail: ReceivedMail): string {
  const match = /License key: (lk_[0-9A-Za-z]{32})/.exec(mail.text);
  if (!match) throw new Error(`no license key in mail:\n${mail.text}`);
  return match[1]!;
}
