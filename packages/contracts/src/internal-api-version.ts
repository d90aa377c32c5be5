/**
 * The version of the internal API between the gateway and stats (the hosted operations as the
 * gateway forwards them, the internal operations, the WebSocket pushes on Redis). Both sides send
 * theirs on every call and answer in `INTERNAL_API_VERSION_HEADER`; each accepts a peer from
 * `OLDEST_SUPPORTED_INTERNAL_API_VERSION` on, so during a rolling deploy an older gateway works
 * against a newer stats and the other way round.
 *
 * The rule that makes "the other way round" possible: a release only adds to the internal API
 * (routes, optional fields, headers). Removing or changing something takes two releases: the first
 * stops using it (and raises this number), the next one, once no peer older than that is
 * supported, removes it (and raises the oldest supported version). docs/operations.md,
 * "Upgrades without downtime", has the whole procedure.
 *
 * 1: every release before the version was sent (a missing header means 1).
 * 2: the header is sent and checked.
 */
export const INTERNAL_API_VERSION = 2;

/** The oldest peer either side still serves: the previous release's. */
export const OLDEST_SUPPORTED_INTERNAL_API_VERSION = 1;

export const INTERNAL_API_VERSION_HEADER = "x-arena-internal-api";

/** A peer's version from its header: a missing header is version 1; anything but digits is NaN. */
export function internalApiVersionOf(header: string | undefined): number {
  if (header === undefined || header === "") return 1;
  return /^[0-9]{1,6}$/.test(header) ? Number(header) : Number.NaN;
}

/** Whether this side serves a peer of `version` (any newer one: releases only add). */
export function servesInternalApiVersion(version: number): boolean {
  return Number.isInteger(version) && version >= OLDEST_SUPPORTED_INTERNAL_API_VERSION;
}
