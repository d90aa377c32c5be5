/** The time source; tests pass a clock they can move to cross rate-limit windows and lease lifetimes. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
