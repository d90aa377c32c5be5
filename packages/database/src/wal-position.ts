/**
 * The primary's WAL position that covers every transaction committed so far, as `lsn` (text): a
 * standby whose `pg_last_wal_replay_lsn()` has reached it sees all of them.
 *
 * Not `pg_current_wal_lsn()`: that is how far WAL has been written out, and with asynchronous
 * commit (`synchronous_commit = off`) a commit is acknowledged while its record still sits in the
 * primary's buffers, beyond it. The insert position covers that record. It has one quirk: when the
 * last record ends exactly at the end of a WAL page, it points past the next page's header (24
 * bytes, 40 on a segment's first page), where a standby's replay position never stops. That header
 * is taken off, so the position is the last record's end.
 */
export const COMMITTED_WAL_POSITION_SQL = walRecordEndSql("pg_current_wal_insert_lsn()");

/** `lsn` as the end of the record before it when `lsnExpression` is just past a page header. */
export function walRecordEndSql(lsnExpression: string): string {
  return `WITH p AS (SELECT ${lsnExpression} AS lsn, current_setting('wal_block_size')::int AS page)
SELECT (p.lsn - CASE
         WHEN o.file_offset < p.page THEN CASE WHEN o.file_offset = 40 THEN 40 ELSE 0 END
         WHEN o.file_offset % p.page = 24 THEN 24
         ELSE 0 END)::text AS lsn
FROM p, pg_walfile_name_offset(p.lsn) o`;
}
