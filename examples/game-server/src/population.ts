import { randomBytes } from "node:crypto";

/**
 * The simulated players and where each one is, as this server knows it: idle (between matches),
 * waiting in the queue, or playing. Each has a hidden skill drawn at random: the API takes no
 * rating (the platform rates players from the results it is sent), so the skill only shapes who
 * wins, and the platform's ratings and the matchmaker's choices follow from that over the matches.
 */
export class Population {
  private readonly skills = new Map<string, number>();
  private readonly idle: string[] = [];
  private readonly waiting = new Set<string>();
  /** One run's players never collide with another run's in the same game. */
  private readonly prefix = `sim-${randomBytes(3).toString("hex")}`;
  private created = 0;

  /** Waiting players, as far as this server knows. */
  get waitingCount(): number {
    return this.waiting.size;
  }

  /** `count` players to queue: idle ones first (they play again), new ones beyond them. */
  take(count: number): string[] {
    const taken = this.idle.splice(0, count);
    while (taken.length < count) taken.push(this.newPlayer());
    return taken;
  }

  /** The players are in the queue now. */
  queued(playerIds: readonly string[]): void {
    for (const id of playerIds) this.waiting.add(id);
  }

  /** A submission that did not go through: the players are idle again, to be queued later. */
  notQueued(playerIds: readonly string[]): void {
    this.idle.unshift(...playerIds);
  }

  /** The players left the queue for a match (or as a backfill replacement). */
  playing(playerIds: readonly string[]): void {
    for (const id of playerIds) this.waiting.delete(id);
  }

  /** The platform put them back in the queue (a match failed before it started). */
  requeued(playerIds: readonly string[]): void {
    for (const id of playerIds) this.waiting.add(id);
  }

  /** Their match is over: idle until queued again. */
  finished(playerIds: readonly string[]): void {
    this.idle.push(...playerIds);
  }

  /** Gone for good: removed from the queue by the platform, or dropped out of a match. */
  gone(playerIds: readonly string[]): void {
    for (const id of playerIds) this.waiting.delete(id);
  }

  skillOf(playerId: string): number {
    return this.skills.get(playerId) ?? 1500;
  }

  private newPlayer(): string {
    const id = `${this.prefix}-${++this.created}`;
    // Roughly normal around 1500 (the sum of three uniforms), so most players are close and a few stand out.
    const spread = (Math.random() + Math.random() + Math.random() - 1.5) * 400;
    this.skills.set(id, Math.round(1500 + spread));
    return id;
  }
}
