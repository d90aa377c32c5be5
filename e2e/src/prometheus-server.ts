import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually, freePort } from "@arena/service-kit/testing";

/**
 * A real Prometheus server (Debian's `prometheus` package) on a free loopback port, with its own
 * storage in a temporary directory, scraping the given targets every second and evaluating the
 * given rule files every second.
 */
export interface PrometheusServer {
  url: string;
  /** An instant query through the HTTP API: the whole answer (`status`, `data`, `error`, `warnings`). */
  query(expr: string): Promise<PrometheusAnswer>;
  /** A GET of the HTTP API (`/api/v1/targets`, `/api/v1/rules`): its `data`. */
  api<T>(path: string): Promise<T>;
  close(): Promise<void>;
}

export interface PrometheusAnswer {
  status: "success" | "error";
  data?: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> };
  errorType?: string;
  error?: string;
  warnings?: string[];
}

export async function startPrometheus(options: {
  jobs: Record<string, string>;
  ruleFiles: string[];
}): Promise<PrometheusServer> {
  const dir = await mkdtemp(join(tmpdir(), "arena-prometheus-"));
  const config = {
    global: { scrape_interval: "1s", scrape_timeout: "1s", evaluation_interval: "1s" },
    rule_files: options.ruleFiles,
    scrape_configs: Object.entries(options.jobs).map(([job, target]) => ({
      job_name: job,
      static_configs: [{ targets: [target] }],
    })),
  };
  // JSON is YAML: no YAML writer needed.
  await writeFile(join(dir, "prometheus.yml"), JSON.stringify(config));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = "";
  const child = spawn(
    "prometheus",
    [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const close = async () => {
    await stop(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await untilReady(url, child, () => output);
  } catch (err) {
    await close();
    throw err;
  }
  const api = async <T>(path: string): Promise<T> => {
    const answer = (await (await fetch(`${url}${path}`)).json()) as {
      status: string;
      data: T;
      error?: string;
    };
    if (answer.status !== "success") throw new Error(`${path}: ${answer.error}`);
    return answer.data;
  };
  const query = async (expr: string) =>
    (await (
      await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: expr })}`)
    ).json()) as PrometheusAnswer;
  return { url, query, api, close };
}

async function untilReady(url: string, child: ChildProcess, output: () => string): Promise<void> {
  await eventually(
    () => {
      if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${output()}`);
      return fetch(`${url}/-/ready`).then(
        (res) => res.ok,
        () => false,
      );
    },
    { timeoutMs: 30_000, everyMs: 100, what: () => `prometheus to be ready:\n${output()}` },
  );
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}
