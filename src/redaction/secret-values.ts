import { z } from 'zod';
import { lazySchema } from '../contracts/lazy-schema.js';
import type { Model } from '../contracts/model.js';
import type { Limits } from '../contracts/limits.js';
import { ENVELOPE_DEPTH, MAX_REDACTION_DEPTH, Redactor } from './redactor.js';

/**
 * Shorter values are not treated as secrets: redacting a 3-character string wherever it occurs
 * would wreck ordinary text. The `redact` option refuses them; a short provider header value
 * (a version number, a flag) is simply not a secret.
 */
export const MIN_SECRET_LENGTH = 4;

const TOO_SHORT = `must be a string of at least ${MIN_SECRET_LENGTH} characters (a shorter value would redact ordinary text)`;

/** The `redact` option wherever it is taken (the kernel, `submitRun`, the control functions). */
export const RedactValuesSchema = lazySchema(() => z.array(z.string({ error: TOO_SHORT }).min(MIN_SECRET_LENGTH, TOO_SHORT)));

/** What a kernel redacts: the `redact` option and the values its models and tools were configured with. */
export interface SecretSources {
  readonly redact?: readonly string[] | undefined;
  readonly models: readonly (Model | undefined)[];
  /** Tools and tool sources: each may list the credentials it was configured with. */
  readonly tools?: Iterable<{ readonly secrets?: readonly string[] }>;
  /** The size and shape limits: the redactor walks deeper than any value they let through. */
  readonly limits?: Limits;
}

/** The kernel's redactor (ADR/0100): one per kernel, shared by its runs. */
export function createRedactor(sources: SecretSources): Redactor {
  const values = [
    ...(sources.redact ?? []),
    ...sources.models.flatMap((model) => model?.secrets ?? []),
    ...[...(sources.tools ?? [])].flatMap((tool) => tool.secrets ?? []),
  ].filter((value) => value.length >= MIN_SECRET_LENGTH);
  return new Redactor(expandSecrets(values), redactionDepth(sources.limits));
}

/** Deep enough that a tool result or arguments within the limits reach the redactor whole (ADR 0104). */
export function redactionDepth(limits: Limits | undefined): number {
  if (limits === undefined) return MAX_REDACTION_DEPTH;
  return Math.max(MAX_REDACTION_DEPTH, limits.toolResultDepth, limits.toolArgumentsDepth) + ENVELOPE_DEPTH;
}

/**
 * Each secret as it may appear in text: as is, without a `Bearer ` prefix, escaped inside a JSON
 * string, and URL-encoded.
 */
export function expandSecrets(values: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const value of values) {
    const bare = value.replace(/^Bearer\s+/i, '');
    for (const form of [value, bare, JSON.stringify(value).slice(1, -1), JSON.stringify(bare).slice(1, -1), encodeURIComponent(bare)]) {
      if (form.length >= MIN_SECRET_LENGTH) forms.add(form);
    }
  }
  return [...forms];
}
