/**
 * What the client did with a push it has seen: buffered for an iterator, handed to the caller
 * (taken), or handed over and acknowledged.
 */
export type RealtimeKeyState = "buffered" | "taken" | "acknowledged";

/**
 * The identities of the last `capacity` pushes handed to the caller, oldest forgotten first. A push
 * seen again (stats offers again what it did not see acknowledged; a handover overlaps two
 * connections) is recognised within this window and never handed over twice.
 */
export class RealtimeRecentKeys {
  private readonly keys = new Map<string, RealtimeKeyState>();

  constructor(private readonly capacity: number) {}

  get(key: string): RealtimeKeyState | undefined {
    return this.keys.get(key);
  }

  set(key: string, state: RealtimeKeyState): void {
    // Re-inserted, so a key still in use is the last to be forgotten.
    this.keys.delete(key);
    this.keys.set(key, state);
    while (this.keys.size > this.capacity) {
      const oldest = this.keys.keys().next().value as string;
      this.keys.delete(oldest);
    }
  }

  delete(key: string): void {
    this.keys.delete(key);
  }

  get size(): number {
    return this.keys.size;
  }
}
