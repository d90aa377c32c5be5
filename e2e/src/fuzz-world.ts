import { type Delivered, type Envelope, type RestClient, teamsOf } from "./clients.js";
import { FUZZ_GAME_CONFIG, type FuzzWorld } from "./fuzz-cases.js";

/** Confirmed matches made at once (one is the backfill request's): fuzzed completions end one after another. */
const MATCH_POOL_SIZE = 8;

interface PooledMatch {
  id: string;
  players: readonly [string, string];
}

/**
 * The fuzzing tenant's live objects: a configured game, a confirmed match, a backfill request (of
 * another match) and a waiting player, so that near-valid requests reach the code behind their lookups. Fuzzing
 * changes them (a fuzzed completion completes the match, a fuzzed backfill changes its players, a
 * fuzzed config is stored); `ensure` notices, and moves on to the next of a pool of confirmed
 * matches, made again when it runs out.
 */
export class FuzzTenantWorld implements FuzzWorld {
  readonly gameId: string;
  matchId = "";
  matchPlayers: readonly [string, string] = ["", ""];
  waitingPlayerId = "";
  backfillMatchId = "";
  backfillingRequestId = "";
  private pool: PooledMatch[] = [];
  private serial = 0;

  /**
   * @param pushed the fuzzing socket's pushes: a match pushed to it is delivered there, not to a
   *   REST fetch.
   */
  constructor(
    private readonly rest: RestClient,
    gameId: string,
    private readonly pushed: () => readonly Envelope[],
  ) {
    this.gameId = gameId;
  }

  private get game(): string {
    return `/games/${this.gameId}`;
  }

  freshPlayerId(): string {
    this.serial += 1;
    return `fz-${this.serial}`;
  }

  /**
   * Makes the objects again: the valid config, an empty queue, a pool of confirmed matches, a
   * waiting player and a backfill request. `firstPlayers` are the first match's.
   */
  async refresh(firstPlayers?: readonly [string, string]): Promise<void> {
    await this.expect("PUT", this.game, FUZZ_GAME_CONFIG, 200);
    await this.expect("DELETE", `${this.game}/queue`, undefined, 200);
    const pairs = Array.from({ length: MATCH_POOL_SIZE }, (_, i): readonly [string, string] =>
      i === 0 && firstPlayers ? firstPlayers : [this.freshPlayerId(), this.freshPlayerId()],
    );
    const players = pairs.flat().map((playerId) => ({ playerId }));
    await this.expect("POST", `${this.game}/players`, { players }, 204);
    this.pool = await this.matchesOf(pairs.flat());
    for (const match of this.pool) {
      await this.expect("POST", `${this.game}/matches/${match.id}/statuses/confirmed`, undefined, 204);
    }
    // A backfill request drops its player from the match for good: it gets a match of its own, and
    // is cancelled at once (searching, it would seat the waiting player).
    const backfillMatch = this.pool.pop()!;
    this.backfillMatchId = backfillMatch.id;
    this.backfillingRequestId = `bf-${this.freshPlayerId()}`;
    const backfill = `${this.game}/matches/${backfillMatch.id}/backfill`;
    const request = {
      backfillingRequestId: this.backfillingRequestId,
      droppedPlayerId: backfillMatch.players[1],
    };
    await this.expect("POST", backfill, request, 201);
    await this.expect("DELETE", `${backfill}/${this.backfillingRequestId}`, undefined, 200);
    this.waitingPlayerId = this.freshPlayerId();
    await this.expect("POST", `${this.game}/players`, { players: [{ playerId: this.waitingPlayerId }] }, 204);
    this.takeNextMatch();
  }

  /**
   * Makes sure the game's config is the valid one and the current match is confirmed with its own
   * players; moves to the next match of the pool (or makes a new pool) when it is not.
   */
  async ensure(): Promise<void> {
    const config = await this.rest.call("GET", this.game);
    const intact =
      config.status === 200 &&
      Object.entries(FUZZ_GAME_CONFIG).every(
        ([k, v]) => JSON.stringify(config.body[k]) === JSON.stringify(v),
      );
    if (!intact) await this.expect("PUT", this.game, FUZZ_GAME_CONFIG, 200);
    let refreshes = 0;
    while (!(await this.matchIntact())) {
      if (this.pool.length > 0) {
        this.takeNextMatch();
      } else if (refreshes++ < 2) {
        await this.refresh();
      } else {
        throw new Error(`the fuzzing tenant's new match ${this.matchId} is not confirmed with its players`);
      }
    }
  }

  private async matchIntact(): Promise<boolean> {
    if (this.matchId === "") return false;
    const match = await this.rest.call("GET", `${this.game}/matches/${this.matchId}`);
    return (
      match.status === 200 &&
      match.body.status === "confirmed" &&
      JSON.stringify(teamsOf(match.body).flat()) === JSON.stringify(this.matchPlayers)
    );
  }

  /** The next pooled match becomes the current one. */
  private takeNextMatch(): void {
    const next = this.pool.shift()!;
    this.matchId = next.id;
    this.matchPlayers = next.players;
  }

  /**
   * The matches of the players, fetched by REST or found among the fuzzing socket's pushes. A
   * fuzzed backfill request still searching may seat some of them elsewhere: once two matches are
   * found and no more come for a while, those found do.
   */
  private async matchesOf(playerIds: readonly string[]): Promise<PooledMatch[]> {
    const ours = new Set(playerIds);
    const found = new Map<string, PooledMatch>();
    const deadline = Date.now() + 20_000;
    let lastFound = Date.now();
    while (found.size * 2 < ours.size && !(found.size >= 2 && Date.now() - lastFound > 2_000)) {
      if (Date.now() > deadline) throw new Error("the fuzzing tenant's players were not matched within 20 s");
      await new Promise((r) => setTimeout(r, 100));
      const fetched = await this.rest.call("POST", `${this.game}/matches`);
      const pushed = this.pushed()
        .filter((p) => p.action === "matchSuggestion" && p.payload?.gameId === this.gameId)
        .map((p) => p.payload.match as Delivered);
      for (const match of [...(fetched.status === 200 ? (fetched.body as Delivered[]) : []), ...pushed]) {
        const [first, second] = teamsOf(match).flat();
        if (!found.has(match.id) && ours.has(first!) && ours.has(second!)) {
          found.set(match.id, { id: match.id, players: [first!, second!] });
          lastFound = Date.now();
        }
      }
    }
    // The match of the first player first: it holds the ids `refresh` was asked for.
    const first = playerIds[0]!;
    return [...found.values()].sort(
      (a, b) => Number(b.players.includes(first)) - Number(a.players.includes(first)),
    );
  }

  private async expect(method: string, path: string, body: unknown, status: number): Promise<void> {
    const res = await this.rest.call(method, path, body);
    if (res.status !== status) {
      throw new Error(`${method} ${path} answered ${res.status}, not ${status}: ${JSON.stringify(res.body)}`);
    }
  }
}
