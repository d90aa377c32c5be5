/** Seeded random numbers, so every benchmark run sends byte-identical queues. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function normal(random: () => number, mean: number, sd: number): number {
  const u = 1 - random();
  const v = random();
  return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export const SERVERS = Array.from({ length: 10 }, (_, i) => `server-${i + 1}`);

export interface BenchTicket {
  ticketId: string;
  joinTimestamp: number;
  rating: number;
  servers: string[];
}

/**
 * A queue as a game backend would send it: ratings ~ N(1500, 300), joins spread over the last
 * `spreadSeconds`, each ticket able to play on 3 to 5 of 10 servers, best first.
 */
export function generateQueue(count: number, now: number, seed: number, spreadSeconds = 60): BenchTicket[] {
  const random = mulberry32(seed);
  const tickets: BenchTicket[] = [];
  for (let i = 0; i < count; i++) {
    const pool = [...SERVERS];
    const servers: string[] = [];
    const wanted = 3 + Math.floor(random() * 3);
    while (servers.length < wanted) servers.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
    tickets.push({
      ticketId: `t-${seed}-${i}`,
      joinTimestamp: now - Math.floor(random() * spreadSeconds),
      rating: Math.round(normal(random, 1500, 300) * 10) / 10,
      servers,
    });
  }
  return tickets;
}
