import type { HostileKind } from "./hostile-values.js";

/**
 * What the fuzzer found: one entry per request or message whose outcome broke the rule (a 2xx, or
 * a 4xx problem with a code; over the WebSocket the action's answer or a 4xx error answer).
 */
export interface Finding {
  surface: "rest" | "ws";
  /** The operationId (REST) or the action (WebSocket; `envelope` for the envelope itself). */
  operation: string;
  /** `param:gameId`, `query:force`, `body:/teams/0/rank`, `payload:/matchId`, `frame`. */
  target: string;
  kind: HostileKind | "frame";
  /** The hostile value, printable. */
  input: string;
  /** What was wrong: `500`, `no answer`, `error 500: ...`, `431 as no content type`. */
  violation: string;
  /** The start of the answer's text. */
  answer: string;
  /** Apps that were down after it (`took stats hung down (restarted)`). */
  takedown?: string;
}

/**
 * A class of findings known today, skipped by the assertion until the fix lands. Each field that
 * is given must match (a list: any of its entries).
 */
export interface KnownFailure {
  finding: string;
  surface?: Finding["surface"];
  operations?: readonly string[];
  targets?: RegExp;
  kinds?: readonly Finding["kind"][];
  /** Labels of hostile values (`2^31`, `a<NUL>b`). */
  inputs?: readonly string[];
  violations?: RegExp;
  /**
   * Not even sent: the input takes an app down (it hangs or runs out of memory), which would stop
   * the rest of the fuzzing. Remove the flag with the fix, and the input is sent again.
   */
  withheld?: true;
}

/** A case about to be sent: a finding without its outcome. */
export type FuzzCaseKey = Omit<Finding, "violation" | "answer">;

function matchesCase(k: KnownFailure, c: FuzzCaseKey): boolean {
  return (
    (k.surface === undefined || k.surface === c.surface) &&
    (k.operations === undefined || k.operations.includes(c.operation)) &&
    (k.targets === undefined || k.targets.test(c.target)) &&
    (k.kinds === undefined || k.kinds.includes(c.kind)) &&
    (k.inputs === undefined || k.inputs.includes(c.input))
  );
}

/** The known failure that explains a finding. A takedown is never explained: withhold its input. */
export function isKnown(finding: Finding, known: readonly KnownFailure[]): KnownFailure | undefined {
  if (finding.takedown !== undefined) return undefined;
  return known.find(
    (k) => matchesCase(k, finding) && (k.violations === undefined || k.violations.test(finding.violation)),
  );
}

/** Whether a case is withheld: a known failure that would take an app down. */
export function isWithheld(c: FuzzCaseKey, known: readonly KnownFailure[]): boolean {
  return known.some((k) => k.withheld === true && matchesCase(k, c));
}

/** One line per distinct (surface, operation, target, kind, violation), with how often it was seen. */
export function summarize(findings: readonly Finding[]): string[] {
  const seen = new Map<string, { finding: Finding; count: number }>();
  for (const f of findings) {
    const violation = f.violation.slice(0, 60) + (f.takedown ? `; ${f.takedown}` : "");
    const key = [f.surface, f.operation, f.target, f.kind, violation].join(" | ");
    const entry = seen.get(key);
    if (entry) entry.count += 1;
    else seen.set(key, { finding: f, count: 1 });
  }
  return [...seen.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, { finding, count }]) => `${key} | ×${count} | e.g. ${finding.input} → ${finding.answer}`);
}

/** The start of an answer, printable. */
export function excerpt(text: string, length = 200): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > length ? `${flat.slice(0, length)}…` : flat;
}
