import { createServer } from "node:http";
import { CONSTANT_ANSWER as ANSWER } from "./constant-answer.js";

/**
 * Stands in for stats in the gateway benchmark: one constant JSON answer to every request, so what
 * is measured is the gateway's own cost. Run as its own process, like the gateway.
 */
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(ANSWER) });
    res.end(ANSWER);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 18091), "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
