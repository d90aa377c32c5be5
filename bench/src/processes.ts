import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { eventually } from "@arena/service-kit/testing";

export interface Service {
  name: string;
  url: string;
  child: ChildProcess;
}

/**
 * Node flags for one of the processes from an environment variable (space-separated, e.g.
 * `--cpu-prof` to profile a run); `defaults` when it is not set.
 */
export function nodeFlags(variable: string, defaults = ""): string[] {
  return (process.env[variable] ?? defaults).split(" ").filter(Boolean);
}

export async function startService(
  name: string,
  script: string,
  port: number,
  env: Record<string, string>,
  readyPath = "/livez",
  flags: string[] = [],
): Promise<Service> {
  const child = spawn(process.execPath, [...flags, script], {
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn" },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    () => {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} during start-up`);
      return fetch(url + readyPath).then(
        (res) => res.ok,
        () => false,
      );
    },
    { timeoutMs: 30_000, everyMs: 100, what: `${name} to start on port ${port}` },
  ).catch((err) => {
    child.kill("SIGKILL");
    throw err;
  });
  return { name, url, child };
}

export async function stopService(service: Service): Promise<void> {
  if (service.child.exitCode !== null) return;
  const exited = new Promise((r) => service.child.once("exit", r));
  service.child.kill("SIGTERM");
  await exited;
}

/** Peak resident memory of a process so far (VmHWM), in MiB. Linux only. */
export function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  return Math.round((kb / 1024) * 10) / 10;
}
