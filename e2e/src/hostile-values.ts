import fc from "fast-check";

/**
 * The values a hostile client puts into fields, path parameters and query parameters: the fixed
 * catalogue every field is tried with, and fast-check arbitraries that mix it with arbitrary JSON.
 */

/** The class of a hostile value: what a known failure is matched on. */
export type HostileKind =
  | "nul"
  | "lone-surrogate"
  | "long-string"
  | "nan-like-string"
  | "odd-string"
  | "huge-number"
  | "negative-number"
  | "int32-overflow"
  | "unsafe-integer"
  | "billion"
  | "non-finite-literal"
  | "small-number"
  | "wrong-type"
  | "arbitrary-json";

export interface HostileValue {
  kind: HostileKind;
  /** Short and printable: what a finding names (the value itself may be 100 KB). */
  label: string;
  value: unknown;
}

/**
 * A JSON number literal that JavaScript cannot hold as written (2^53+1, 1e309, -0): the request
 * body carries the literal itself, so the server parses what a hostile client really sends.
 */
export class RawJsonNumber {
  constructor(readonly literal: string) {}
}

/** Ten times the default maximum of a WebSocket message's half: long, but under every body limit. */
export const LONG_STRING_LENGTH = 100_000;

const hostile = (kind: HostileKind, label: string, value: unknown): HostileValue => ({ kind, label, value });

export const HOSTILE_STRINGS: readonly HostileValue[] = [
  hostile("nul", "NUL", "\u0000"),
  hostile("nul", "a<NUL>b", "a\u0000b"),
  hostile("lone-surrogate", "<D800>", "\ud800"),
  hostile("lone-surrogate", "x<DFFF>", "x\udfff"),
  hostile("long-string", "a×100000", "a".repeat(LONG_STRING_LENGTH)),
  hostile("nan-like-string", '"NaN"', "NaN"),
  hostile("nan-like-string", '"Infinity"', "Infinity"),
  hostile("nan-like-string", '"1e309"', "1e309"),
  hostile("nan-like-string", '"-0"', "-0"),
  hostile("odd-string", '""', ""),
  hostile("odd-string", '"../.."', "../.."),
  hostile("odd-string", '"a:b*{c}"', "a:b*{c}"),
  hostile("odd-string", '"<RLO>😀<BOM>"', "\u202e😀\ufeff"),
  hostile("odd-string", '"\' OR 1=1 --"', "' OR 1=1 --"),
];

export const HOSTILE_NUMBERS: readonly HostileValue[] = [
  hostile("huge-number", "1e308", 1e308),
  hostile("huge-number", "-1e308", -1e308),
  hostile("negative-number", "-1", -1),
  hostile("int32-overflow", "2^31", 2 ** 31),
  hostile("unsafe-integer", "2^53+1", new RawJsonNumber("9007199254740993")),
  hostile("unsafe-integer", "2^63", new RawJsonNumber("9223372036854775808")),
  hostile("billion", "10^9", 1e9),
  hostile("non-finite-literal", "1e309", new RawJsonNumber("1e309")),
  hostile("non-finite-literal", "-1e309", new RawJsonNumber("-1e309")),
  hostile("small-number", "-0", new RawJsonNumber("-0")),
  hostile("small-number", "0.5", 0.5),
  hostile("small-number", "5e-324", 5e-324),
];

export const HOSTILE_SHAPES: readonly HostileValue[] = [
  hostile("wrong-type", "null", null),
  hostile("wrong-type", "true", true),
  hostile("wrong-type", "[]", []),
  hostile("wrong-type", "{}", {}),
  hostile("wrong-type", '["a"]', ["a"]),
  hostile("wrong-type", '{"__proto__":{"x":1}}', JSON.parse('{"__proto__":{"x":1}}')),
];

/** Every catalogued value: the deterministic part, each tried in every field. */
export const HOSTILE_CATALOGUE: readonly HostileValue[] = [
  ...HOSTILE_STRINGS,
  ...HOSTILE_NUMBERS,
  ...HOSTILE_SHAPES,
];

/** A string unit that also yields NUL and lone surrogates, which fast-check's own units leave out. */
const hostileCharacter = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom("\u0000", "\ud800", "\udbff", "\udc00", "\udfff") },
);

/** Arbitrary JSON (NUL and lone surrogates in its strings, doubles at the edges in its numbers). */
export const arbitraryJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3, stringUnit: hostileCharacter }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ unit: hostileCharacter, maxLength: 40 }),
);

/**
 * The class of an arbitrary JSON value: a NUL or a lone surrogate anywhere in it makes it one of
 * those (a known failure of that class then explains it too).
 */
export function kindOf(value: unknown): HostileKind {
  const strings = stringsOf(value);
  if (strings.some((s) => s.includes("\u0000"))) return "nul";
  if (strings.some((s) => LONE_SURROGATE.test(s))) return "lone-surrogate";
  return "arbitrary-json";
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Every string in a JSON value, its object keys included. */
function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => [k, ...stringsOf(v)]);
  }
  return [];
}

/** One hostile value: mostly the catalogue, otherwise arbitrary JSON. */
export const hostileValue: fc.Arbitrary<HostileValue> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_CATALOGUE) },
  { weight: 1, arbitrary: arbitraryJson.map((value) => hostile(kindOf(value), describeJson(value), value)) },
);

/**
 * A printable, bounded account of a JSON value for a finding (JSON.stringify writes NUL and lone
 * surrogates as escapes).
 */
export function describeJson(value: unknown): string {
  const text = JSON.stringify(value, (_k, v: unknown) => (v instanceof RawJsonNumber ? v.literal : v)) ?? "";
  return text.length > 120 ? `${text.slice(0, 100)}…(${text.length} chars)` : text;
}

/** JSON text of a body, with each RawJsonNumber written as its literal. */
export function toJsonText(value: unknown): string {
  const literals: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (!(v instanceof RawJsonNumber)) return v;
    literals.push(v.literal);
    return `\u0001raw${literals.length - 1}\u0001`;
  });
  return text.replace(/"\\u0001raw(\d+)\\u0001"/g, (_m, i: string) => literals[Number(i)]!);
}

/**
 * A path segment or query value as a hostile client writes it: percent-encoded UTF-8, except that a
 * lone surrogate becomes the bytes it would have in WTF-8 (`%ED%A0%80`), which is not UTF-8 at all.
 * `encodeURIComponent` would throw on it instead of sending it.
 */
export function percentEncode(value: string): string {
  let out = "";
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      out +=
        `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase();
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

/** How a hostile value is written into a path or query string. */
export function asParameterText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof RawJsonNumber) return value.literal;
  return JSON.stringify(value) ?? "";
}
