import { HOSTED_OPERATIONS, type HostedOperation } from "@arena/contracts";

/** Values for every path parameter of the action table. */
const PARAM_VALUES: Record<string, string> = {
  gameId: "game-1",
  matchId: "5f0c6d7e-8a9b-4c1d-9e2f-3a4b5c6d7e8f",
  playerId: "player-1",
  backfillingRequestId: "backfill-1",
  season: "S2",
};

/** Every hosted operation with a concrete path, as the security and routing suites call them. */
export const CONCRETE_OPERATIONS = (HOSTED_OPERATIONS as readonly HostedOperation[]).map((op) => ({
  op,
  path: op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = PARAM_VALUES[name];
    if (value === undefined) throw new Error(`no test value for path parameter ${name}`);
    return value;
  }),
}));
