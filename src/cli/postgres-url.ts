/**
 * `--store postgres://user:password@host:port/database?schema=S&queueSchema=Q`: the connection
 * string the `pg` driver gets (without dualloop's own parameters), the store's schema, and the
 * URL as it may be printed — with the password (and any `password` / `sslpassword` parameter)
 * taken out. A command that prints a hint with it works when the password comes from
 * `PGPASSWORD` or `~/.pgpass`, which the driver reads (docs/postgres.md).
 */

export interface PostgresTarget {
  readonly connectionString: string;
  readonly schema?: string;
  readonly queueSchema?: string;
  /** The URL for messages and hints: no password. */
  readonly redacted: string;
}

const URL_SCHEME = /^postgres(ql)?:\/\//i;
const SECRET_PARAMETERS = ['password', 'sslpassword'];

/** `--store postgres://…` (or `postgresql://`): a Postgres store; anything else is a SQLite file. */
export function isPostgresUrl(flag: string | undefined): flag is string {
  return flag !== undefined && URL_SCHEME.test(flag);
}

/** Undefined when `flag` is not a URL (a file path); a problem that never repeats the URL when it cannot be parsed. */
export function parsePostgresUrl(flag: string | undefined): PostgresTarget | { readonly problem: string } | undefined {
  if (!isPostgresUrl(flag)) return undefined;
  let url: URL;
  try {
    url = new URL(flag);
  } catch {
    return { problem: '--store: not a valid postgres:// URL (expected postgres://user@host:port/database[?schema=NAME])' };
  }
  const schema = url.searchParams.get('schema') ?? undefined;
  const queueSchema = url.searchParams.get('queueSchema') ?? undefined;
  const redacted = new URL(url.toString());
  redacted.password = '';
  for (const name of SECRET_PARAMETERS) redacted.searchParams.delete(name);
  url.searchParams.delete('schema');
  url.searchParams.delete('queueSchema');
  return { connectionString: url.toString(), ...(schema === undefined ? {} : { schema }), ...(queueSchema === undefined ? {} : { queueSchema }), redacted: redacted.toString() };
}

/** Removes the password of every `postgres://` URL in `text` (for messages built from user input). */
export function redactPostgresUrls(text: string): string {
  return text.replace(/postgres(?:ql)?:\/\/[^\s'"]*/gi, (found) => {
    const parsed = parsePostgresUrl(found);
    return parsed === undefined || 'problem' in parsed ? 'postgres://(redacted)' : parsed.redacted;
  });
}

/** A word a POSIX shell reads back as is: quoted when it holds anything but plain characters. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
