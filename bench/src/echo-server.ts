import { createServer } from "node:http";

/**
 * The floor any HTTP matchmaker pays: read the request, JSON.parse it, serialize the tickets back.
 * Run as its own process so it is measured exactly like the matchmaker.
 */
const server = createServer((req, res) => {
  if (req.method === "GET") {
    res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { tickets: unknown[] };
    const text = JSON.stringify({ matchSuggestions: [], unmatchedTickets: body.tickets });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(text);
  });
});
server.listen(Number(process.env.PORT ?? 8090), "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
