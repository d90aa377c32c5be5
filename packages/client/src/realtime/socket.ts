/** The little of a WebSocket the client uses, over Node's built-in one or the `ws` package. */
export interface RealtimeSocket {
  send(text: string): void;
  /** A clean close (close frame, then the peer's answer). */
  close(code: number, reason: string): void;
  /** Cut at once, without waiting for the peer. */
  terminate(): void;
  onMessage: (text: string) => void;
  onClose: (code: number, reason: string) => void;
}

/** The upgrade failed: `status` is the HTTP answer when the transport lets it be read (`ws` does). */
export class RealtimeOpenError extends Error {
  override readonly name = "RealtimeOpenError";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

type NativeWebSocket = {
  readyState: number;
  send(text: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: string, listener: (event: never) => void): void;
};
type NativeWebSocketClass = new (url: string) => NativeWebSocket;

/**
 * Opens a socket to `url` with `token`: Node's built-in WebSocket (Node 22+) when present, which
 * cannot send headers, so the token goes in the `authorization` query parameter the gateway also
 * reads; else the `ws` package, with the token in the `Authorization` header, where a refused
 * upgrade's status (401) can be read.
 */
export async function openRealtimeSocket(
  url: string,
  token: string,
  timeoutMs: number,
): Promise<RealtimeSocket> {
  const Native = (globalThis as { WebSocket?: NativeWebSocketClass }).WebSocket;
  const opening = Native ? openNative(Native, url, token) : openWs(url, token);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new RealtimeOpenError(`No connection within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([opening, timeout]);
  } catch (err) {
    // A socket that opens after the timeout is closed at once.
    void opening.then((socket) => socket.terminate()).catch(() => {});
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

async function openWs(url: string, token: string): Promise<RealtimeSocket> {
  const { default: WebSocket } = await import("ws");
  const ws = new WebSocket(url, { headers: { Authorization: token }, perMessageDeflate: false });
  const socket: RealtimeSocket = {
    send: (text) => ws.send(text),
    close: (code, reason) => ws.close(code, reason),
    terminate: () => ws.terminate(),
    onMessage: () => {},
    onClose: () => {},
  };
  return new Promise((resolve, reject) => {
    ws.once("unexpected-response", (req, res) => {
      req.destroy();
      reject(
        new RealtimeOpenError(`The gateway refused the connection: HTTP ${res.statusCode}`, res.statusCode),
      );
    });
    ws.on("error", (err) => reject(new RealtimeOpenError(err.message)));
    ws.once("open", () => {
      ws.on("message", (data, isBinary) => {
        if (!isBinary) socket.onMessage(data.toString());
      });
      ws.once("close", (code, reason) => socket.onClose(code, reason.toString()));
      resolve(socket);
    });
    // Closed before it opened (refused without an HTTP answer).
    ws.once("close", () => reject(new RealtimeOpenError("The connection closed before it opened")));
  });
}

function openNative(Native: NativeWebSocketClass, url: string, token: string): Promise<RealtimeSocket> {
  const target = new URL(url);
  target.searchParams.set("authorization", token);
  const ws = new Native(target.toString());
  let opened = false;
  const socket: RealtimeSocket = {
    send: (text) => ws.send(text),
    close: (code, reason) => ws.close(code, reason),
    // The built-in socket has no terminate: a close that does not wait for the peer is the nearest.
    terminate: () => ws.close(),
    onMessage: () => {},
    onClose: () => {},
  };
  return new Promise((resolve, reject) => {
    ws.addEventListener("open", () => {
      opened = true;
      resolve(socket);
    });
    ws.addEventListener("message", (event: { data: unknown }) => {
      if (typeof event.data === "string") socket.onMessage(event.data);
    });
    ws.addEventListener("close", (event: { code: number; reason: string }) => {
      if (opened) socket.onClose(event.code, event.reason);
      else reject(new RealtimeOpenError(`The connection closed before it opened (${event.code})`));
    });
    ws.addEventListener("error", () => {
      if (!opened) reject(new RealtimeOpenError("The connection failed"));
    });
  });
}
