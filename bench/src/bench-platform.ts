import { join } from "node:path";
import {
  type AppName,
  appEnvironment,
  type PlatformSecrets,
  type PlatformWiring,
  platformPorts,
} from "../../scripts/platform-wiring.mjs";
import { type Service, startService } from "./processes.js";

/**
 * The benchmarks' apps listen 10,000 above `npm start`'s ports, so both can run at once;
 * `BENCH_PORT_OFFSET` moves them (and the gateway benchmark's constant servers) elsewhere, for a
 * second checkout benchmarking on the same machine.
 */
export const BENCH_PORT_OFFSET = Number(process.env.BENCH_PORT_OFFSET ?? 10_000);
export const BENCH_PORTS = platformPorts(BENCH_PORT_OFFSET);

/** Fixed secrets: the benchmarks' databases and Redis keys are their own and thrown away. */
export const BENCH_SECRETS: PlatformSecrets = {
  adminToken: "bench-admin-token-0123456789",
  serviceToken: "bench-service-token-0123456789",
  signingKeySecret: "bench-signing-key-secret-0123456789abcdef",
};

/**
 * Starts one app of a benchmark's platform from its build, with the environment the platform's
 * wiring gives it (scripts/platform-wiring.mjs) and the benchmark's own settings (`env`) on top;
 * resolves once its /readyz answers.
 */
export function startApp(
  root: string,
  app: AppName,
  wiring: PlatformWiring,
  options: { env?: Record<string, string>; flags?: string[]; label?: string } = {},
): Promise<Service> {
  const env = { ...appEnvironment(app, wiring), ...options.env };
  return startService(
    options.label ?? app,
    join(root, "apps", app, "dist", "main.js"),
    Number(env.PORT),
    env,
    "/readyz",
    options.flags,
  );
}
