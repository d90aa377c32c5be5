import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";

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
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} during start-up`);
    try {
      if ((await fetch(url + readyPath)).ok) return { name, url, child };
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`${name} did not start on port ${port}`);
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
