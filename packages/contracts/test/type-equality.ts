/**
 * Compile-time checks that a type derived from a schema is the type we mean. `tsc` (the typecheck
 * script) fails on a mismatch; at run time these are no-ops.
 */
export type Equal<X, Y> = (<G>() => G extends X ? 1 : 2) extends <G>() => G extends Y ? 1 : 2 ? true : false;

export function assertType<_T extends true>(): void {}
