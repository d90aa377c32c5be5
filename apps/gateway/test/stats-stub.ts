import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type StubHandler = (req: ReceivedRequest, res: ServerResponse) => void;

/** A real HTTP server standing in for stats: records what it receives and answers by `handler`. */
export interface StatsStub {
  url: string;
  received: ReceivedRequest[];
  handler: StubHandler;
  close(): Promise<void>;
}

/** Answers 200 with a JSON echo of the request's method, url and body. */
export const echoHandler: StubHandler = (req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ method: req.method, url: req.url, body: req.body.toString("utf8") }));
};

export async function startStatsStub(): Promise<StatsStub> {
  const stub: StatsStub = {
    url: "",
    received: [],
    handler: echoHandler,
    close: async () => {},
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const received = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      if (req.url !== "/livez") stub.received.push(received);
      stub.handler(received, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}
