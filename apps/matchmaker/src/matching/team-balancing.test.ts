import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { balanceTeams, EXACT_PARTITION_LIMIT, partitionCount, TeamBalancer } from "./team-balancing.js";

/** Smallest range of team sums over every capacity-respecting assignment, or -1 if none exists. */
function bruteForce(sizes: number[], sums: number[], teams: number, perTeam: number): number {
  let best = Number.POSITIVE_INFINITY;
  const fill = new Array<number>(teams).fill(0);
  const total = new Array<number>(teams).fill(0);
  const visit = (i: number): void => {
    if (i === sizes.length) {
      best = Math.min(best, Math.max(...total) - Math.min(...total));
      return;
    }
    for (let t = 0; t < teams; t++) {
      if (fill[t]! + sizes[i]! > perTeam) continue;
      fill[t]! += sizes[i]!;
      total[t]! += sums[i]!;
      visit(i + 1);
      fill[t]! -= sizes[i]!;
      total[t]! -= sums[i]!;
    }
  };
  visit(0);
  return best === Number.POSITIVE_INFINITY ? -1 : best;
}

/** Random units (sizes summing to teams * perTeam, none above perTeam) with integer rating sums. */
const unitsArbitrary = fc
  .record({
    shape: fc.constantFrom([2, 1], [2, 2], [2, 3], [2, 5], [3, 2], [3, 3], [4, 1], [4, 2], [2, 6]),
    cuts: fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 12 }),
    ratings: fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 12, maxLength: 12 }),
  })
  .map(({ shape: [teams, perTeam], cuts, ratings }) => {
    const sizes: number[] = [];
    let left = teams * perTeam;
    for (const cut of cuts) {
      if (left === 0) break;
      const size = Math.min(cut, perTeam, left);
      sizes.push(size);
      left -= size;
    }
    while (left > 0) {
      sizes.push(1);
      left--;
    }
    const sums = sizes.map((size, i) => size * ratings[i % ratings.length]!);
    return { teams: teams!, perTeam: perTeam!, sizes, sums };
  });

function check(sizes: number[], teamOf: Int32Array, teams: number, perTeam: number): void {
  const fill = new Array<number>(teams).fill(0);
  sizes.forEach((size, i) => {
    fill[teamOf[i]!]! += size;
  });
  expect(fill).toEqual(new Array<number>(teams).fill(perTeam));
}

describe("balanceTeams", () => {
  it("finds the optimal split of small matches, as brute force does", () => {
    fc.assert(
      fc.property(unitsArbitrary, ({ teams, perTeam, sizes, sums }) => {
        const teamOf = new Int32Array(sizes.length);
        const imbalance = balanceTeams(
          sizes.length,
          Int32Array.from(sizes),
          Float64Array.from(sums),
          teams,
          perTeam,
          teamOf,
        );
        const optimum = bruteForce(sizes, sums, teams, perTeam);
        if (optimum < 0) {
          expect(imbalance).toBe(-1);
          return;
        }
        expect(imbalance * perTeam).toBeCloseTo(optimum, 6);
        check(sizes, teamOf, teams, perTeam);
      }),
      { numRuns: 400 },
    );
  });

  it("splits 1000, 1100, 1900, 2000 into two teams of 3000", () => {
    const teamOf = new Int32Array(4);
    const imbalance = balanceTeams(
      4,
      Int32Array.of(1, 1, 1, 1),
      Float64Array.of(1000, 1100, 1900, 2000),
      2,
      2,
      teamOf,
    );
    expect(imbalance).toBe(0);
    expect(teamOf[0]).toBe(teamOf[3]);
    expect(teamOf[1]).toBe(teamOf[2]);
  });

  it("keeps a party of two together and fills around it", () => {
    const teamOf = new Int32Array(3);
    const imbalance = balanceTeams(
      3,
      Int32Array.of(2, 1, 1),
      Float64Array.of(3000, 1400, 1600),
      2,
      2,
      teamOf,
    );
    expect(imbalance).toBe(0);
    expect(teamOf[1]).toBe(teamOf[2]);
  });

  it("reports a split that cannot be packed", () => {
    const teamOf = new Int32Array(2);
    expect(balanceTeams(2, Int32Array.of(3, 3), Float64Array.of(1, 1), 3, 2, teamOf)).toBe(-1);
  });

  it("uses the heuristic beyond the exact limit and still fills every team exactly", () => {
    expect(partitionCount(2, 8)).toBeGreaterThan(EXACT_PARTITION_LIMIT);
    expect(partitionCount(2, 5)).toBe(126);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 16, maxLength: 16 }),
        (ratings) => {
          const teamOf = new Int32Array(16);
          const sizes = new Array<number>(16).fill(1);
          const imbalance = balanceTeams(
            16,
            Int32Array.from(sizes),
            Float64Array.from(ratings),
            2,
            8,
            teamOf,
          );
          check(sizes, teamOf, 2, 8);
          // Never worse than the snake draft (1st, 4th, 5th, 8th, ... best players against the rest).
          const sorted = [...ratings].sort((a, b) => b - a);
          const snake = sorted.reduce((diff, r, i) => diff + ((i + 1) % 4 < 2 ? r : -r), 0);
          expect(imbalance * 8).toBeLessThanOrEqual(Math.abs(snake) + 1e-9);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("2v2 of single players", () => {
  it("finds the optimal split, ties included, and labels the best player's team 0", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(1000, 1200, 1500, 1500.5, 2000), { minLength: 4, maxLength: 4 }),
        (drawn) => {
          const ratings: number[] = drawn;
          const sums = Float64Array.from(ratings);
          const teamOf = new Int32Array(4);
          const imbalance = balanceTeams(4, Int32Array.from([1, 1, 1, 1]), sums, 2, 2, teamOf);
          const total = ratings.reduce((x, y) => x + y, 0);
          const pairs: Array<[number, number]> = [
            [0, 1],
            [0, 2],
            [0, 3],
          ];
          const splits = pairs.map(([a, b]) => Math.abs(2 * (ratings[a]! + ratings[b]!) - total) / 2);
          expect(imbalance).toBeCloseTo(Math.min(...splits), 9);
          expect([...teamOf].filter((t) => t === 0)).toHaveLength(2);
          const best = ratings.indexOf(Math.max(...ratings));
          expect(teamOf[best]).toBe(0);
        },
      ),
    );
  });

  it("3v3 to 5v5 with a bound to beat: the same split below it, Infinity when nothing is below it", () => {
    const balancer = new TeamBalancer();
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 5 }),
        fc.array(fc.integer({ min: 800, max: 2200 }), { minLength: 10, maxLength: 10 }),
        (perTeam, drawn) => {
          const count = 2 * perTeam;
          const sums = Float64Array.from(drawn.slice(0, count));
          const sizes = new Int32Array(count).fill(1);
          const free = new Int32Array(count);
          const optimum = balancer.balance(count, sizes, sums, 2, perTeam, free);
          expect(optimum * perTeam).toBeCloseTo(bruteForce([...sizes], [...sums], 2, perTeam), 6);
          const bounded = new Int32Array(count);
          expect(balancer.balance(count, sizes, sums, 2, perTeam, bounded, optimum + 0.5)).toBe(optimum);
          expect([...bounded]).toEqual([...free]);
          if (optimum >= 1) {
            expect(balancer.balance(count, sizes, sums, 2, perTeam, bounded, optimum - 0.5)).toBe(
              Number.POSITIVE_INFINITY,
            );
          }
        },
      ),
    );
  });

  it("balances a window in ascending rating order (the searches' windows) as it does the same players sorted", () => {
    const balancer = new TeamBalancer();
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 5 }),
        fc.array(fc.constantFrom(1000, 1100, 1250, 1300, 1600), { minLength: 10, maxLength: 10 }),
        (perTeam, drawn) => {
          const count = 2 * perTeam;
          const ascending = drawn.slice(0, count).sort((a, b) => a - b);
          const descending = [...ascending].reverse();
          const sizes = new Int32Array(count).fill(1);
          const teamsOf = (ratings: number[]) => {
            const teamOf = new Int32Array(count);
            const imbalance = balancer.balance(count, sizes, Float64Array.from(ratings), 2, perTeam, teamOf);
            const team = (t: number) => ratings.filter((_, i) => teamOf[i] === t).sort((a, b) => a - b);
            return { imbalance, teams: [team(0), team(1)] };
          };
          const up = teamsOf(ascending);
          expect(up).toEqual(teamsOf(descending));
          expect(up.imbalance * perTeam).toBeCloseTo(bruteForce([...sizes], ascending, 2, perTeam), 6);
        },
      ),
    );
  });

  it("puts the strongest with the weakest", () => {
    const teamOf = new Int32Array(4);
    const imbalance = balanceTeams(
      4,
      Int32Array.from([1, 1, 1, 1]),
      Float64Array.from([1400, 1800, 1500, 1600]),
      2,
      2,
      teamOf,
    );
    expect([...teamOf]).toEqual([0, 0, 1, 1]);
    expect(imbalance).toBe(50);
  });
});
