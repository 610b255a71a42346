import { randomUUID } from 'node:crypto';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import { ConfigError } from '../errors.js';
import type { Redactor } from '../redaction/redactor.js';

/*
 * Ids the redactor leaves alone (ADR 0303). Stores file a run's records under its id and the
 * kernel's store redacts every string it is handed: an id holding a configured secret (a short
 * `redact` value inside a random UUID) was filed as `[redacted]`, and the run could not even take
 * its lease. A generated run id is drawn again; an id the caller chose is a ConfigError naming it.
 */

/** Draws before giving up: a redact value that matches every id (`run-`) is a configuration error, not bad luck. */
const ATTEMPTS = 64;
const WHY = 'contains a value the kernel redacts (a configured secret or a key-shaped token): its records would be filed under "[redacted]"';

/** `given`, checked, or a fresh `<prefix>-<uuid>` the redactor leaves whole. */
export function cleanRunId(given: string | undefined, redactor: Redactor, where: string, prefix = 'run'): string {
  if (given !== undefined) {
    if (redactor.text(given) !== given) throw new ConfigError({ message: `Invalid ${where}`, issues: [{ path: 'runId', message: WHY }] });
    return given;
  }
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const id = `${prefix}-${randomUUID()}`;
    if (redactor.text(id) === id) return id;
  }
  throw new ConfigError({ message: `Invalid ${where}`, issues: [{ path: 'redact', message: `a value matches every generated run id (${prefix}-<uuid>); redact longer values` }] });
}

/** Task ids are keys of checkpoints and events too. */
export function refuseRedactedTaskIds(specs: readonly TaskSpec[], redactor: Redactor): void {
  const issues = specs.flatMap((spec) => (redactor.text(spec.id) === spec.id ? [] : [{ path: `tasks.${spec.index}.id`, message: WHY }]));
  if (issues.length > 0) throw new ConfigError({ message: 'Invalid tasks', issues });
}
