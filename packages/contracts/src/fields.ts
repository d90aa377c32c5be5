/**
 * The field rules every contract builds on, each stated once: what text a client may send (ids,
 * names, references) and the integer range PostgreSQL stores. Path parameters, bodies and
 * WebSocket payloads all use these builders, so an id is refused or accepted the same way
 * wherever it arrives.
 */

/** The largest value of PostgreSQL's `integer` (2^31 − 1): the bound of ranks and season numbers. */
export const INT32_MAX = 2_147_483_647;

/**
 * Text PostgreSQL stores exactly as sent: no NUL (its text types refuse it) and no lone UTF-16
 * surrogate (UTF-8 has none, so it would be stored as U+FFFD, a different string than the one
 * sent). ajv compiles patterns with the `u` flag, under which a surrogate pair is one character
 * outside `\uD800-\uDFFF` and only a lone surrogate falls inside it.
 */
export const STORABLE_TEXT_PATTERN = "^[^\\u0000\\uD800-\\uDFFF]*$";

/** Free text of at most `maxLength` characters, possibly empty (a reference). */
export function textField<const Max extends number>(maxLength: Max) {
  return { type: "string", maxLength, pattern: STORABLE_TEXT_PATTERN } as const;
}

/** A client-chosen id or name: non-empty storable text of at most `maxLength` characters. */
export function idField<const Max extends number>(maxLength: Max) {
  return { type: "string", minLength: 1, maxLength, pattern: STORABLE_TEXT_PATTERN } as const;
}

/** A server name, wherever a client sends one (a game's servers, a player's, a result's). */
export const ServerNameField = idField(256);
/** Servers a game runs on, or a player names: at most this many in one list. */
export const MAX_SERVERS = 100;

/** Game ids appear in paths and storage keys: letters, digits, `_`, `.`, `-`, at most 64. */
export const GAME_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$";
export const GameIdField = { type: "string", maxLength: 64, pattern: GAME_ID_PATTERN } as const;

/** The last season number: seasons are PostgreSQL integers. */
export const MAX_SEASON_NUMBER = INT32_MAX;
/**
 * Season names: `S1`, `S2`, ... up to `S2147483647` (no `S0`, no leading zeros). The alternation
 * spells out the decimal numbers 1 to 2^31 − 1 digit by digit, so a name the schema accepts is
 * always a season number PostgreSQL can hold.
 */
export const SEASON_NAME_PATTERN =
  "^S(?:[1-9][0-9]{0,8}|1[0-9]{9}|20[0-9]{8}|21[0-3][0-9]{7}|214[0-6][0-9]{6}|2147[0-3][0-9]{5}|21474[0-7][0-9]{4}|214748[0-2][0-9]{3}|2147483[0-5][0-9]{2}|21474836[0-3][0-9]|214748364[0-7])$";
/** `S2147483647`. */
export const MAX_SEASON_NAME_LENGTH = 11;
/** A season name field, for embedding in other schemas (no `$id`). */
export const SeasonNameField = {
  type: "string",
  maxLength: MAX_SEASON_NAME_LENGTH,
  pattern: SEASON_NAME_PATTERN,
} as const;

/**
 * Patterns long to read, in words: a field error says "must be <words>", and docs/api.md the
 * words instead of the pattern.
 */
export const PATTERNS_IN_WORDS: ReadonlyMap<string, string> = new Map([
  [STORABLE_TEXT_PATTERN, "text without NUL characters or unpaired UTF-16 surrogates"],
  [SEASON_NAME_PATTERN, `a season name, S1 to S${MAX_SEASON_NUMBER}`],
]);
