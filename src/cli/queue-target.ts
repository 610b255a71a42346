import { basename, extname } from 'node:path';
import { isPostgresUrl } from './store-target.js';

/** Where `submit` and `worker` find runs and queues: `--store postgres://…[?schema=S][&queueSchema=Q]`. */
export interface QueueTarget {
  readonly connectionString: string;
  readonly schema?: string;
  readonly queueSchema?: string;
}

/** The target named by `--store`, or a message saying why it cannot be one. */
export function queueTarget(flag: string | undefined, command: string): QueueTarget | { readonly problem: string } {
  if (!isPostgresUrl(flag)) return { problem: `${command} needs --store postgres://… (runs and their queue live in Postgres)` };
  const url = new URL(flag);
  const schema = url.searchParams.get('schema') ?? undefined;
  const queueSchema = url.searchParams.get('queueSchema') ?? undefined;
  url.searchParams.delete('schema');
  url.searchParams.delete('queueSchema');
  return { connectionString: url.toString(), ...(schema === undefined ? {} : { schema }), ...(queueSchema === undefined ? {} : { queueSchema }) };
}

/** A manifest's workflow name: its file name without the extension (`examples/expense-report.yaml` → `expense-report`). */
export function workflowOf(manifestPath: string): string {
  return basename(manifestPath, extname(manifestPath));
}
