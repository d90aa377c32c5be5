import {
  type GameConfig,
  type GameConfigRequest,
  gameModeName,
  withGameConfigDefaults,
} from "@arena/contracts";
import type { Clock } from "../clock.js";
import type { Database } from "../db.js";

const MAX_KNOWN_GAMES = 100_000;

type StoredConfig = ReturnType<typeof withGameConfigDefaults>;

/** A tenant's games: one game mode each, the unit of queues, ratings and leaderboards. */
export class GameStore {
  /** Games known to exist (games are never deleted), so hot reads skip PostgreSQL. */
  private readonly known = new Set<string>();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** Creates or replaces a game's config (PUT semantics: omitted options fall back to defaults). */
  async put(tenantId: string, gameId: string, request: GameConfigRequest): Promise<GameConfig> {
    const config = withGameConfigDefaults(request);
    const now = this.clock.now();
    const fields = {
      mode: gameModeName(config),
      numTeams: config.numTeams,
      numPlayersPerTeam: config.numPlayersPerTeam,
      maxQueueSeconds: config.maxQueueSeconds,
      config,
      updatedAt: now,
    };
    const row = await this.db.game.upsert({
      where: { tenantId_gameId: { tenantId, gameId } },
      create: { tenantId, gameId, createdAt: now, ...fields },
      update: fields,
    });
    return toGameConfig(row);
  }

  /** Whether the game is configured; remembered once true. */
  async exists(tenantId: string, gameId: string): Promise<boolean> {
    const key = `${tenantId}\u0000${gameId}`;
    if (this.known.has(key)) return true;
    const found = (await this.db.game.count({ where: { tenantId, gameId } })) > 0;
    if (found) {
      if (this.known.size >= MAX_KNOWN_GAMES) this.known.clear();
      this.known.add(key);
    }
    return found;
  }

  async get(tenantId: string, gameId: string): Promise<GameConfig | undefined> {
    const row = await this.db.game.findUnique({ where: { tenantId_gameId: { tenantId, gameId } } });
    return row ? toGameConfig(row) : undefined;
  }

  /** Mode names of the tenant's games, for statistics answers. */
  async modes(tenantId: string, gameIds: readonly string[]): Promise<Map<string, string>> {
    if (gameIds.length === 0) return new Map();
    const rows = await this.db.game.findMany({
      where: { tenantId, gameId: { in: [...gameIds] } },
      select: { gameId: true, mode: true },
    });
    return new Map(rows.map((r) => [r.gameId, r.mode]));
  }
}

function toGameConfig(row: {
  gameId: string;
  mode: string;
  config: unknown;
  createdAt: Date;
  updatedAt: Date;
}): GameConfig {
  return {
    gameId: row.gameId,
    mode: row.mode,
    // Configs stored before an option existed get its default.
    ...withGameConfigDefaults(row.config as StoredConfig),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
