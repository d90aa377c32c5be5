/** RFC 7240: does the client want the body of an operation that answers 204 by default? */
export function wantsRepresentation(prefer: string | undefined): boolean {
  return prefer !== undefined && /(^|[\s,;])return\s*=\s*"?representation"?($|[\s,;])/i.test(prefer);
}
