/** The store's clock, in epoch milliseconds: the database server's, never the caller's (ADR/0182). */
export const NOW_MS = '(extract(epoch from now()) * 1000)::bigint';
