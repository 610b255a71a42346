/**
 * A task's output as text: the text itself, or the JSON of a typed output (`undefined`, when no
 * answer matched the schema, is empty). For prompts, summaries and engines that carry text.
 */
export function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  return JSON.stringify(output) ?? '';
}
