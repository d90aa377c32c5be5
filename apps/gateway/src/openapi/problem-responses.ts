import { type ErrorCode, errorCodeInfo, hostedErrorCodes } from "@arena/contracts";

type Json = Record<string, unknown>;

const PROBLEM_CONTENT = {
  "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } },
};

/** `- \`FORBIDDEN\` (Forbidden): the token's role may not call this operation.` */
const codeLine = (code: ErrorCode) =>
  `- \`${code}\` (${errorCodeInfo[code].title}): ${errorCodeInfo[code].meaning}.`;

/**
 * The error answers of an operation, one per status, each a problem+json document: its
 * description lists every code of the error table the status may carry there, with its meaning.
 */
export function problemResponses(codes: readonly ErrorCode[]): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const { status } = errorCodeInfo[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, sameStatus]) => [
        String(status),
        { description: sameStatus.map(codeLine).join("\n"), content: PROBLEM_CONTENT },
      ]),
  );
}

/** The codes behind statuses, as a hosted or admin operation answers them (see `hostedErrorCodes`). */
export function codesOfStatuses(statuses: readonly number[]): ErrorCode[] {
  return statuses.flatMap((status) => {
    const codes = hostedErrorCodes(status);
    if (codes.length === 0) throw new Error(`No error code of the table has the status ${status}`);
    return codes;
  });
}
