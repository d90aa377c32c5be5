/**
 * Helpers for tests that run services as real processes or servers (`@arena/service-kit/testing`;
 * not part of the kit's main entry, so no app loads them).
 */
import { Agent, get as httpGet } from "node:http";
import { createServer } from "node:net";

/**
 * A port for a process to listen on, random within `[from, from + span)` and checked bindable.
 * Keep ranges below Linux's ephemeral range (32768–60999): the suites running meanwhile bind port
 * 0 by the thousand (supertest does for every request), and one of them could take an ephemeral
 * port between this probe and the child's own listen.
 */
export async function freePort(from = 20_000, span = 12_000): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = from + Math.floor(Math.random() * span);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (bound) {
      await new Promise((r) => server.close(r));
      return port;
    }
  }
  throw new Error(`no free port found between ${from} and ${from + span}`);
}

/** A complete answer, or the error code of a request that got none (ECONNRESET, …). */
export type KeptAliveOutcome = { status: number; body: string } | string;

/**
 * A client on one kept-alive connection: request after request (the i-th to `urlOf(i)`), each
 * outcome reported, until an answer says `Connection: close` (the server drains), a new
 * connection is refused (the listener closed: not reported), or a request fails (reported as its
 * error code, then stops). A reset is thus a request sent on a connection the server had accepted.
 */
export async function keptAliveClient(
  urlOf: (i: number) => string,
  onOutcome: (outcome: KeptAliveOutcome) => void,
  headers: Record<string, string> = {},
): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; ; i++) {
      const answer = await new Promise<{ status: number; body: string; close: boolean }>(
        (resolve, reject) => {
          const req = httpGet(urlOf(i), { agent, headers }, (res) => {
            let body = "";
            res.setEncoding("utf8");
            res.on("data", (chunk) => {
              body += chunk;
            });
            res.on("end", () =>
              resolve({ status: res.statusCode ?? 0, body, close: res.headers.connection === "close" }),
            );
            res.on("error", reject);
          });
          req.on("error", reject);
        },
      ).catch((err: { code?: string }) => err.code ?? String(err));
      if (answer === "ECONNREFUSED") return;
      if (typeof answer === "string") {
        onOutcome(answer);
        return;
      }
      onOutcome({ status: answer.status, body: answer.body });
      if (answer.close) return;
    }
  } finally {
    agent.destroy();
  }
}
