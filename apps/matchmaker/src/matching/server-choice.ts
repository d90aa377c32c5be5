/**
 * Picks a match's server among those every ticket can use. Order of preference:
 * 1. lowest worst latency over latency-map tickets, 2. lowest mean latency over them,
 * 3. lowest worst position over server-list tickets, 4. lowest mean position over them,
 * 5. server name (code-unit order), so the choice never depends on input order.
 * A server list carries no latency, so list tickets only weigh in through their preference order
 * (on the basic edition that is all there is).
 */
import type { QueueModel } from "./queue-model.js";

export class ServerChooser {
  private readonly stamp: Int32Array;
  private readonly count: Int32Array;
  private readonly worstLatency: Float64Array;
  private readonly sumLatency: Float64Array;
  private readonly worstPosition: Float64Array;
  private readonly sumPosition: Float64Array;
  private readonly nameRank: Int32Array;
  private readonly touched: Int32Array;
  private round = 0;

  constructor(private readonly model: QueueModel) {
    const servers = model.serverNames.length;
    this.stamp = new Int32Array(servers).fill(-1);
    this.count = new Int32Array(servers);
    this.worstLatency = new Float64Array(servers);
    this.sumLatency = new Float64Array(servers);
    this.worstPosition = new Float64Array(servers);
    this.sumPosition = new Float64Array(servers);
    this.touched = new Int32Array(servers);
    const byName = model.serverNames.map((_, i) => i);
    byName.sort((a, b) => {
      const x = model.serverNames[a]!;
      const y = model.serverNames[b]!;
      return x < y ? -1 : x > y ? 1 : 0;
    });
    this.nameRank = new Int32Array(servers);
    byName.forEach((server, rank) => {
      this.nameRank[server] = rank;
    });
  }

  /**
   * Best server shared by the given tickets (members of `units[from..to)`), or -1 when they share none. With
   * per-server bits, the servers shared by all units are known at once and usually there is one.
   */
  choose(units: Int32Array, from: number, to: number, tickets: Int32Array, ticketCount: number): number {
    const m = this.model;
    const masks = m.unitServerMask;
    if (masks !== undefined) {
      let shared = -1;
      for (let i = from; i < to; i++) shared &= masks[units[i]!]!;
      if (shared === 0) return -1;
      if ((shared & (shared - 1)) === 0) return 31 - Math.clz32(shared);
    }
    const round = this.round++;
    const latencies = m.ticketServerLatency;
    let touched = 0;
    for (let i = 0; i < ticketCount; i++) {
      const t = tickets[i]!;
      const first = m.ticketServerStart[t]!;
      for (let e = first; e < m.ticketServerStart[t + 1]!; e++) {
        const s = m.ticketServerId[e]!;
        if (this.stamp[s] !== round) {
          this.stamp[s] = round;
          this.count[s] = 0;
          this.worstLatency[s] = 0;
          this.sumLatency[s] = 0;
          this.worstPosition[s] = 0;
          this.sumPosition[s] = 0;
          this.touched[touched++] = s;
        }
        this.count[s]!++;
        const latency = latencies === undefined ? Number.NaN : latencies[e]!;
        if (!Number.isNaN(latency)) {
          if (latency > this.worstLatency[s]!) this.worstLatency[s] = latency;
          this.sumLatency[s] = this.sumLatency[s]! + latency;
        } else {
          const position = e - first;
          if (position > this.worstPosition[s]!) this.worstPosition[s] = position;
          this.sumPosition[s] = this.sumPosition[s]! + position;
        }
      }
    }
    let best = -1;
    for (let i = 0; i < touched; i++) {
      const s = this.touched[i]!;
      if (this.count[s] !== ticketCount) continue;
      if (best < 0 || this.better(s, best)) best = s;
    }
    return best;
  }

  private better(a: number, b: number): boolean {
    if (this.worstLatency[a] !== this.worstLatency[b]) return this.worstLatency[a]! < this.worstLatency[b]!;
    if (this.sumLatency[a] !== this.sumLatency[b]) return this.sumLatency[a]! < this.sumLatency[b]!;
    if (this.worstPosition[a] !== this.worstPosition[b])
      return this.worstPosition[a]! < this.worstPosition[b]!;
    if (this.sumPosition[a] !== this.sumPosition[b]) return this.sumPosition[a]! < this.sumPosition[b]!;
    return this.nameRank[a]! < this.nameRank[b]!;
  }
}
