import type { MatchmakingRequest, MatchmakingResponse } from "@arena/contracts";
import { Pool } from "undici";

/**
 * The hosted queue's call to the matchmaker (`MATCHMAKER_URL`): `POST /matchmaking/basic` over
 * kept-alive connections, bounded by undici's own timers.
 */
export class MatchmakerClient {
  private readonly pool: Pool;

  constructor(url: string, timeoutMs: number) {
    this.pool = new Pool(url, {
      connections: 8,
      connectTimeout: Math.min(timeoutMs, 5000),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  }

  async match(request: MatchmakingRequest, requestId: string): Promise<MatchmakingResponse> {
    const answer = await this.pool.request({
      method: "POST",
      path: "/matchmaking/basic",
      headers: { "content-type": "application/json", "x-request-id": requestId },
      body: JSON.stringify(request),
    });
    const text = await answer.body.text();
    if (answer.statusCode !== 200) {
      let detail = text.slice(0, 500);
      try {
        detail = (JSON.parse(text) as { detail?: string }).detail ?? detail;
      } catch {}
      throw new Error(`matchmaker answered ${answer.statusCode}: ${detail}`);
    }
    return JSON.parse(text) as MatchmakingResponse;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
