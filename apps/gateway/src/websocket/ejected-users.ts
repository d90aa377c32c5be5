import type { Clock } from "@arena/service-kit";

/**
 * The users one of whose connections this replica ejected (too many malformed frames), and until
 * when they may not connect again here. Without it a flooding client reconnects at once, and each
 * new connection buys it another batch of frames the gateway must read: a reconnect loop cost the
 * other tenants as much CPU as the flood itself. Entries end by the clock and are swept at the next
 * ejection, so the map holds only users still waiting.
 */
export class EjectedUsers {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly cooldownMs: number,
  ) {}

  eject(userId: string): void {
    if (this.cooldownMs === 0) return;
    const now = this.clock.now().getTime();
    for (const [user, until] of this.until) if (until <= now) this.until.delete(user);
    this.until.set(userId, now + this.cooldownMs);
  }

  /** How long the user must still wait before connecting here; 0 when it may. */
  waitMs(userId: string): number {
    const until = this.until.get(userId);
    if (until === undefined) return 0;
    const left = until - this.clock.now().getTime();
    if (left > 0) return left;
    this.until.delete(userId);
    return 0;
  }
}
