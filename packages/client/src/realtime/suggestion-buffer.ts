/**
 * The suggestions waiting for `suggestions()` iterators: bounded, pulled one at a time, so a slow
 * consumer holds at most `capacity` of them. `offer` refuses past the bound instead of growing
 * (the client then leaves the suggestion unacknowledged for stats to offer again).
 */
export class RealtimeSuggestionBuffer<T> {
  private readonly items: T[] = [];
  private readonly waiting: Array<(result: IteratorResult<T>) => void> = [];
  private ended = false;

  constructor(
    private readonly capacity: number,
    /** Called once an item is handed to an iterator (the client acks then). */
    private readonly taken: (item: T) => void,
  ) {}

  get length(): number {
    return this.items.length;
  }

  /** Iterators waiting for an item right now. */
  get waiters(): number {
    return this.waiting.length;
  }

  /** False when full (or ended): the item was not taken. */
  offer(item: T): boolean {
    if (this.ended) return false;
    const waiter = this.waiting.shift();
    if (waiter) {
      waiter({ value: item, done: false });
      this.taken(item);
      return true;
    }
    if (this.items.length >= this.capacity) return false;
    this.items.push(item);
    return true;
  }

  next(): Promise<IteratorResult<T>> {
    const item = this.items.shift();
    if (item !== undefined) {
      this.taken(item);
      return Promise.resolve({ value: item, done: false });
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** No more items: waiting iterators end; what is buffered is dropped and returned (never acked). */
  end(): T[] {
    this.ended = true;
    for (const waiter of this.waiting.splice(0)) waiter({ value: undefined, done: true });
    return this.items.splice(0);
  }
}
