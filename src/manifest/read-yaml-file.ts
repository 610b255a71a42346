import { readFile } from 'node:fs/promises';
import { parseYamlSource, type SourceIssue, type YamlSource } from './yaml-source.js';

export type ParsedFile<T> = { readonly ok: true; readonly value: T; readonly source: YamlSource } | { readonly ok: false; readonly issues: readonly SourceIssue[] };

/** Reads and parses a YAML or JSON file; a missing file or a syntax error is an issue, not a throw. */
export async function readYamlFile(path: string, file: string): Promise<ParsedFile<unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message = code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'is a directory, not a file' : `cannot read the file (${code ?? String(error)})`;
    return { ok: false, issues: [{ file, path: '', message }] };
  }
  const source = parseYamlSource(text, file);
  if (source.syntaxIssues.length > 0) return { ok: false, issues: source.syntaxIssues };
  return { ok: true, value: source.data, source };
}
