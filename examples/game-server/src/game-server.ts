import { setTimeout as sleep } from "node:timers/promises";
import {
  type ArenaClient,
  type BackfillingMatchSuggestionPayload,
  type ClientHooks,
  createArenaClient,
  type MatchSuggestionPayload,
  RealtimeClient,
} from "@arena/client";
import { BackfillWaits } from "./backfill-waits.js";
import type { GameServerConfig } from "./config.js";
import { type Figures, noFigures } from "./figures.js";
import { ensureGame } from "./game-setup.js";
import { type Logger, silentLogger } from "./logger.js";
import { playMatch } from "./match-play.js";
import { Population } from "./population.js";
import { QueueFeeder } from "./queue-feeder.js";

export interface GameServerOptions {
  logger?: Logger;
  /** The SDK's hooks (metrics, logger), passed to both of its clients. */
  hooks?: ClientHooks;
}

/**
 * A sample game server on @arena/client: it configures its game, keeps simulated players in the
 * queue, takes the matches the platform pushes to it, confirms each, plays it for a moment (a
 * player may drop out and be backfilled), and completes it with a random result.
 *
 * `start()` returns once it is subscribed and queueing; `whenCompleted(n)` resolves once n matches
 * are done; `stop()` stops queueing, lets the matches under way finish, clears what is left in the
 * queue and closes the WebSocket. `figures()` may be read at any time.
 */
export class GameServer {
  private readonly client: ArenaClient;
  private readonly realtime: RealtimeClient;
  private readonly logger: Logger;
  private readonly population = new Population();
  private readonly backfillWaits = new BackfillWaits();
  private readonly counts: Figures = noFigures();
  private readonly feeder: QueueFeeder;
  /** Every match this server was given, so a second suggestion for one is seen as a duplicate. */
  private readonly handled = new Set<string>();
  private readonly underWay = new Map<string, Promise<void>>();
  private readonly completionWaits: Array<{ count: number; resolve: () => void }> = [];
  private stopping = false;
  /** Ends what is still under way once `stop()` has waited long enough. */
  private readonly halt = new AbortController();

  constructor(
    private readonly config: GameServerConfig,
    options: GameServerOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    const hooks = options.hooks ?? {};
    this.client = createArenaClient({
      baseUrl: config.url,
      clientId: config.clientId,
      username: config.username,
      password: config.password,
      ...(config.userPoolId ? { flow: "USER_SRP_AUTH" as const, userPoolId: config.userPoolId } : {}),
      hooks,
    });
    // One login for both: the WebSocket takes its token from the same source as the REST calls.
    this.realtime = new RealtimeClient({ url: config.wsUrl, tokens: this.client.tokens, hooks });
    this.feeder = new QueueFeeder({
      client: this.client,
      gameId: config.gameId,
      population: this.population,
      target: () => this.queueTarget(),
      onQueued: (count) => {
        this.counts.playersQueued += count;
      },
      onError: (err) => this.logger.warn("players could not be queued (will retry)", { error: String(err) }),
    });
  }

  /** Configures the game, subscribes to its pushes and starts queueing. */
  async start(): Promise<void> {
    await ensureGame(this.client, this.config);
    this.realtime.on("connected", ({ kind }) => {
      // "handover" replaces a connection before its lifetime ends, with no gap: not a reconnect.
      if (kind === "reconnect") {
        this.counts.reconnects++;
        this.logger.info("reconnected", { reconnects: this.counts.reconnects });
      }
    });
    this.realtime.on("matchSuggestion", (push) => this.onMatch(push));
    this.realtime.on("backfillingMatchSuggestion", (push) => this.onReplacement(push));
    this.realtime.on("playersRemoved", (push) => {
      if (push.gameId === this.config.gameId) this.population.gone(push.players.map((p) => p.playerId));
    });
    await this.realtime.subscribe({ gameIds: [this.config.gameId] });
    this.feeder.start();
    this.logger.info("started", { gameId: this.config.gameId });
  }

  /** Resolves once at least `count` matches are completed. */
  whenCompleted(count: number): Promise<void> {
    if (this.counts.matchesCompleted >= count) return Promise.resolve();
    return new Promise((resolve) => this.completionWaits.push({ count, resolve }));
  }

  /**
   * Stops queueing and waits (at most `drainMs`) until the matches under way are over and no match
   * can form from what is left waiting; then ends what is still under way, clears the queue and
   * closes the WebSocket.
   */
  async stop(drainMs = this.config.confirmationTimeout * 1000 + this.config.persistMs): Promise<Figures> {
    this.stopping = true;
    this.feeder.stop();
    await this.drain(Date.now() + drainMs);
    // Whatever is still under way (a drain cut short) ends now, counted as failures.
    this.halt.abort();
    await Promise.allSettled([...this.underWay.values()]);
    try {
      const cleared = await this.client.clearQueue({ gameId: this.config.gameId });
      this.logger.info("queue cleared", { ...cleared });
    } catch (err) {
      this.logger.warn("the queue could not be cleared", { error: String(err) });
    }
    await this.realtime.close();
    this.logger.info("stopped", { ...this.counts });
    return this.figures();
  }

  figures(): Figures {
    return { ...this.counts };
  }

  /**
   * Waiting players wanted now: QUEUE_TARGET at most, and no more than the free seats (CAPACITY
   * matches at once) and the matches still to play (MATCHES) can take.
   */
  private queueTarget(): number {
    const { matches, queueTarget, capacity, numTeams, numPlayersPerTeam } = this.config;
    if (this.stopping) return 0;
    const matchesWanted = Math.min(
      capacity - this.underWay.size,
      matches === 0 ? Number.POSITIVE_INFINITY : matches - this.counts.matchesCompleted - this.underWay.size,
    );
    return Math.max(0, Math.min(queueTarget, matchesWanted * numTeams * numPlayersPerTeam));
  }

  private onMatch(push: MatchSuggestionPayload): void {
    if (push.gameId !== this.config.gameId) return;
    this.counts.suggestionsReceived++;
    const { id } = push.match;
    if (this.handled.has(id)) {
      this.counts.duplicates++;
      this.logger.warn("a suggestion for a match already in hand", { matchId: id });
      return;
    }
    this.handled.add(id);
    const play = playMatch(
      {
        client: this.client,
        config: this.config,
        population: this.population,
        backfillWaits: this.backfillWaits,
        figures: this.counts,
        logger: this.logger,
        signal: this.halt.signal,
      },
      push.match,
    ).finally(() => {
      this.underWay.delete(id);
      this.settleCompletionWaits();
    });
    this.underWay.set(id, play);
  }

  private onReplacement(push: BackfillingMatchSuggestionPayload): void {
    if (push.gameId !== this.config.gameId) return;
    const outcome = this.backfillWaits.arrived(push);
    if (outcome === "duplicate") this.counts.duplicates++;
    if (outcome !== "awaited") this.logger.warn(`a ${outcome} backfill replacement`, { ...push });
  }

  private settleCompletionWaits(): void {
    const done = this.counts.matchesCompleted;
    for (let i = this.completionWaits.length - 1; i >= 0; i--) {
      const wait = this.completionWaits[i]!;
      if (done >= wait.count) {
        this.completionWaits.splice(i, 1);
        wait.resolve();
      }
    }
  }

  /**
   * Until `deadline`: the matches under way end, and the queue holds nobody in a match not yet
   * confirmed (a suggestion on its way, or one the platform will time out and requeue) and fewer
   * waiting players than a match needs.
   */
  private async drain(deadline: number): Promise<void> {
    const perMatch = this.config.numTeams * this.config.numPlayersPerTeam;
    while (Date.now() < deadline) {
      await Promise.allSettled([...this.underWay.values()]);
      try {
        const queue = await this.client.getPlayers({ gameId: this.config.gameId });
        const matched = queue.filter((p) => p.state === "matched").length;
        if (this.underWay.size === 0 && matched === 0 && queue.length < perMatch) return;
      } catch (err) {
        this.logger.warn("the queue could not be read while draining", { error: String(err) });
      }
      await sleep(200);
    }
    this.logger.warn("stopped before the queue was drained", { underWay: this.underWay.size });
  }
}
