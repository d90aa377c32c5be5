import { afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import type { AppName } from "../../scripts/platform-wiring.mjs";
import { provisionTenant } from "../src/clients.js";
import { type Platform, startPlatform } from "../src/platform.js";
import { buildRelease, newestMigration, previousReleaseCommit } from "../src/previous-release.js";
import { type FlowStep, referenceFlow } from "../src/reference-flow.js";

/**
 * Upgrades without downtime. During a rolling deploy the previous release's processes run on the
 * schema the new release's migrations made, and beside the new release's processes: a gateway of
 * one release calls a stats of the other. Each case starts the whole platform on databases this
 * checkout's migrations made, runs some apps from the previous release's built tree, and runs a
 * game server's reference flow through it; every step must answer as it does on this release
 * alone. The previous release is the commit before the newest migration (e2e/src/previous-release.ts).
 */

/** A whole platform started and a flow run: about 20 s alone, several times that beside other suites. */
const FLOW_TIMEOUT_MS = 300_000;

let previous: string;
let current: FlowStep[];
let platform: Platform | undefined;

/** What a step answered, without the bodies (an added field is not a break; a status is). */
const outcomes = (flow: FlowStep[]) => flow.map(({ step, status }) => `${step}: ${status}`);

async function flowOn(appRoots: Partial<Record<AppName, string>>): Promise<FlowStep[]> {
  platform = await startPlatform({ appRoots });
  const flow = await referenceFlow(platform.gateway.url, await provisionTenant(platform));
  await platform.close();
  platform = undefined;
  return flow;
}

beforeAll(async () => {
  const commit = previousReleaseCommit();
  process.stderr.write(`upgrade tests: ${newestMigration()} applied under ${commit.slice(0, 12)}\n`);
  previous = buildRelease(commit);
  current = await flowOn({});
  expect(current.find((s) => s.step === "complete by REST")?.status).toBe(200);
}, 600_000);

afterEach(async () => {
  await platform?.close();
  platform = undefined;
});

describe("a rolling deploy", () => {
  it(
    "runs the previous release's apps on the newest schema",
    async () => {
      const flow = await flowOn({
        license: previous,
        matchmaker: previous,
        stats: previous,
        gateway: previous,
      });
      expect(outcomes(flow)).toEqual(outcomes(current));
    },
    FLOW_TIMEOUT_MS,
  );

  it(
    "runs the previous release's gateway against this release's stats",
    async () => {
      expect(outcomes(await flowOn({ gateway: previous }))).toEqual(outcomes(current));
    },
    FLOW_TIMEOUT_MS,
  );

  it(
    "runs this release's gateway against the previous release's stats and matchmaker",
    async () => {
      expect(outcomes(await flowOn({ stats: previous, matchmaker: previous }))).toEqual(outcomes(current));
    },
    FLOW_TIMEOUT_MS,
  );
});
