import { createServer, IncomingMessage, type Server, ServerResponse } from "node:http";
import type { Express } from "express";

/** The request and response classes made for each app (`appClasses`). */
const classesOf = new WeakMap<
  Express,
  { AppRequest: typeof IncomingMessage; AppResponse: typeof ServerResponse }
>();

/**
 * Request and response classes for `app`: node's, extended, with the app's prototypes
 * (`app.request`, `app.response`: express's methods) next in their chains, and made the app's
 * prototypes themselves, so that express's own `Object.setPrototypeOf` of each request finds the
 * prototype already there and changes nothing. Classes (not functions with a `prototype`) because
 * V8 sizes an object by its constructors' chain: built by a plain function, a response outgrew its
 * fast shape and fell into dictionary mode.
 */
export function appClasses(app: Express): {
  AppRequest: typeof IncomingMessage;
  AppResponse: typeof ServerResponse;
} {
  let classes = classesOf.get(app);
  if (classes === undefined) {
    class AppRequest extends IncomingMessage {}
    class AppResponse extends ServerResponse<IncomingMessage> {}
    Object.setPrototypeOf(AppRequest.prototype, app.request);
    Object.setPrototypeOf(AppResponse.prototype, app.response);
    app.request = AppRequest.prototype as unknown as Express["request"];
    app.response = AppResponse.prototype as unknown as Express["response"];
    classes = { AppRequest, AppResponse: AppResponse as typeof ServerResponse };
    classesOf.set(app, classes);
  }
  return classes;
}

/**
 * A node HTTP server for an express app whose requests and responses are created with the app's
 * own prototypes. Express gives each request its methods by `Object.setPrototypeOf` on the request
 * and the response; on objects node has already built that costs more than all the rest of express
 * together (see the README's figures: V8 drops the objects' fast shapes). Born with the right
 * prototype, express's own call changes nothing and is free; everything else (its router,
 * `req.get`, `res.json`, …) is unchanged, and node's own server (supertest's) still works, slower.
 */
export function createAppServer(app: Express): Server {
  const { AppRequest, AppResponse } = appClasses(app);
  return createServer({ IncomingMessage: AppRequest, ServerResponse: AppResponse }, app);
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
