import { createServer, IncomingMessage, type Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Express } from "express";

/**
 * A node HTTP server for an express app whose requests and responses are created with the app's
 * own prototypes (`app.request`, `app.response`). Express gives each request its methods by
 * `Object.setPrototypeOf` on the request and the response; on objects node has already built that
 * costs more than all the rest of express together (70 µs of 120 per request on the benchmark
 * machine, see the README). Born with the right prototype, express's own call changes nothing and
 * is free; everything else (its router, `req.get`, `res.json`, …) is unchanged.
 */
export function createAppServer(app: Express): Server {
  function AppRequest(this: IncomingMessage, socket: Socket) {
    IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, req: IncomingMessage, options?: object) {
    (ServerResponse as unknown as (req: IncomingMessage, options?: object) => void).call(this, req, options);
  }
  AppResponse.prototype = app.response;
  return createServer(
    {
      IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
      ServerResponse: AppResponse as unknown as typeof ServerResponse,
    },
    app,
  );
}

/**
 * Makes `app.listen` listen with `createAppServer`, so every caller of a kit app gets it. As
 * express's own: a callback given last is called once, with the listen error if there is one.
 */
export function listenWithAppServer(app: Express): void {
  app.listen = ((...args: unknown[]) => {
    const server = createAppServer(app);
    const last = args.at(-1);
    if (typeof last === "function") {
      let called = false;
      const done = (...a: unknown[]) => {
        if (called) return;
        called = true;
        last(...a);
      };
      args[args.length - 1] = done;
      server.once("error", done);
    }
    return (server.listen as (...a: unknown[]) => Server)(...args);
  }) as Express["listen"];
}
