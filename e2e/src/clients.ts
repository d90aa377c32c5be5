import { randomBytes } from "node:crypto";
import WebSocket from "ws";
import type { Platform } from "./platform.js";

export interface HttpAnswer {
  status: number;
  body: any;
}

/** A game server's REST client for the gateway: `Authorization: <IdToken>` on every call. */
export class RestClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string,
  ) {}

  async call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpAnswer> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        authorization: this.token,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text.length > 0 ? JSON.parse(text) : undefined };
  }
}

/** A tenant with an app client and an admin user, as the admin API made them. */
export interface TenantCredentials {
  tenantId: string;
  clientId: string;
  username: string;
  password: string;
}

/** Creates a tenant, an app client and an admin user through the admin API. */
export async function provisionTenant(platform: Platform): Promise<TenantCredentials> {
  const tenantId = `t${randomBytes(4).toString("hex")}`;
  const admin = async (path: string, body: object) => {
    const res = await fetch(`${platform.gateway.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${platform.adminToken}` },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as Record<string, string>;
  };
  await admin("/admin/tenants", { tenantId, name: "E2E studio" });
  const { clientId } = await admin(`/admin/tenants/${tenantId}/clients`, { name: "game servers" });
  const username = `server-${tenantId}`;
  const password = `pw-${randomBytes(12).toString("hex")}`;
  await admin(`/admin/tenants/${tenantId}/users`, { username, password, role: "admin" });
  return { tenantId, clientId: clientId!, username, password };
}

/** Logs in as a game server does: Cognito's InitiateAuth with the user's password. */
export async function initiateAuth(gatewayUrl: string, user: TenantCredentials): Promise<HttpAnswer> {
  const login = await fetch(`${gatewayUrl}/auth`, {
    method: "POST",
    headers: {
      "content-type": "application/x-amz-json-1.1",
      "x-amz-target": "AWSCognitoIdentityProviderService.InitiateAuth",
    },
    body: JSON.stringify({
      AuthFlow: "USER_PASSWORD_AUTH",
      AuthParameters: { USERNAME: user.username, PASSWORD: user.password },
      ClientId: user.clientId,
    }),
  });
  return { status: login.status, body: await login.json() };
}

/** Creates a tenant, an app client and an admin user, and logs in through the Cognito endpoint. */
export async function newTenant(
  platform: Platform,
): Promise<{ tenantId: string; rest: RestClient; token: string }> {
  const user = await provisionTenant(platform);
  const login = await initiateAuth(platform.gateway.url, user);
  if (login.status !== 200) throw new Error(`login answered ${login.status}: ${JSON.stringify(login.body)}`);
  const token = (login.body as { AuthenticationResult: { IdToken: string } }).AuthenticationResult.IdToken;
  return { tenantId: user.tenantId, token, rest: new RestClient(platform.gateway.url, token) };
}

/** A WebSocket to the gateway's `/ws`, open, authenticated by the token in the query. */
export async function openGatewaySocket(gatewayUrl: string, token: string): Promise<WebSocket> {
  const socket = new WebSocket(
    `${gatewayUrl.replace(/^http/, "ws")}/ws?authorization=${encodeURIComponent(token)}`,
  );
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return socket;
}

export interface Envelope {
  action: string;
  messageId: string | null;
  payload?: any;
  error?: { code: number; message: string; errors?: Array<{ pointer: string; detail: string }> };
}

/** A game server's WebSocket client: requests answered by messageId, pushes collected. */
export class SocketClient {
  readonly pushes: Envelope[] = [];
  private readonly waiting = new Map<string, (e: Envelope) => void>();
  private readonly pushWaiters: Array<() => void> = [];
  private seq = 0;

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as Envelope;
      const resolve = message.messageId ? this.waiting.get(message.messageId) : undefined;
      if (resolve && message.messageId) {
        this.waiting.delete(message.messageId);
        resolve(message);
        return;
      }
      this.pushes.push(message);
      for (const w of this.pushWaiters.splice(0)) w();
    });
  }

  static async connect(gatewayUrl: string, token: string): Promise<SocketClient> {
    return new SocketClient(await openGatewaySocket(gatewayUrl, token));
  }

  send(action: string, payload: object): Promise<Envelope> {
    const messageId = `m${++this.seq}`;
    return new Promise((resolve) => {
      this.waiting.set(messageId, resolve);
      this.socket.send(JSON.stringify({ action, messageId, payload }));
    });
  }

  /** Waits until `count` pushes of `action` have arrived; answers them. */
  async pushesOf(action: string, count: number, timeoutMs = 20_000): Promise<Envelope[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.pushes.filter((p) => p.action === action);
      if (found.length >= count) return found;
      if (Date.now() > deadline) throw new Error(`${found.length} of ${count} ${action} pushes arrived`);
      await new Promise<void>((r) => {
        this.pushWaiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    const closed = new Promise((r) => this.socket.once("close", r));
    this.socket.close();
    await closed;
  }
}

/** How the suites poll the platform (`eventually`'s options): for up to 20 s, every 100 ms. */
export const PLATFORM_POLL = { timeoutMs: 20_000, everyMs: 100 };

/** A delivered match suggestion, as far as the tests read it. */
export type Delivered = { id: string; teams: Array<{ players: Array<{ playerId: string }> }> };

/** A match's teams as lists of player ids. */
export const teamsOf = (m: Delivered) => m.teams.map((t) => t.players.map((p) => p.playerId));

/** A completion body: the first team wins, every player scores by rank. */
export const result = (teams: string[][]) => ({
  teams: teams.map((players, rank) => ({
    rank,
    players: players.map((playerId) => ({ playerId, score: 10 - rank })),
  })),
});
