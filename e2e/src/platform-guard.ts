import type { AppProcess, Platform } from "./platform.js";

/**
 * Watches the platform's processes while it is fuzzed: after a 5xx or a missing answer, every app
 * must still answer `/livez` promptly. One that exited or hangs is a finding of its own (a tenant
 * took the platform down); it is killed and started again so the fuzzing can go on.
 */
export class PlatformGuard {
  /** Apps taken down, with why, in order. */
  readonly takedowns: string[] = [];

  constructor(
    private readonly platform: Platform,
    private readonly probeTimeoutMs = 2_000,
  ) {}

  private get apps(): AppProcess[] {
    const { license, matchmaker, statsReplicas, gateway } = this.platform;
    return [license, matchmaker, ...statsReplicas, gateway];
  }

  /** What was down (`stats exited with 134`, `stats hung`), restarted; undefined when all answered. */
  async check(): Promise<string | undefined> {
    const down: string[] = [];
    for (const app of this.apps) {
      const exited = app.child.exitCode ?? app.child.signalCode;
      if (exited !== null) {
        down.push(`${app.name} exited with ${exited}`);
      } else if (!(await this.answers(app))) {
        down.push(`${app.name} hung`);
        await app.stop("SIGKILL");
      } else {
        continue;
      }
      await app.restart();
    }
    if (down.length === 0) return undefined;
    const why = `took ${down.join(", ")} down (restarted)`;
    this.takedowns.push(why);
    return why;
  }

  private async answers(app: AppProcess): Promise<boolean> {
    try {
      return (await fetch(`${app.url}/livez`, { signal: AbortSignal.timeout(this.probeTimeoutMs) })).ok;
    } catch {
      return false;
    }
  }
}
