import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { parseYamlSource, type SourceIssue, type YamlSource } from './yaml-source.js';

export type ParsedFile<T> = { readonly ok: true; readonly value: T; readonly source: YamlSource } | { readonly ok: false; readonly issues: readonly SourceIssue[] };

/** Largest manifest or cassette read (ADR 0111): a manifest is configuration, never data. */
export const MAX_YAML_FILE_BYTES = 4 * 1024 * 1024;

/**
 * Reads and parses a YAML or JSON file; a missing file or a syntax error is an issue, not a throw.
 * Only a regular file of at most MAX_YAML_FILE_BYTES is read: `/dev/zero`, a FIFO or a socket is an
 * issue at once (opened non-blocking, checked with fstat), so a manifest never makes the CLI hang.
 */
export async function readYamlFile(path: string, file: string): Promise<ParsedFile<unknown>> {
  const text = await readBoundedText(path);
  if (typeof text !== 'string') return { ok: false, issues: [{ file, path: '', message: text.problem }] };
  const source = parseYamlSource(text, file);
  if (source.syntaxIssues.length > 0) return { ok: false, issues: source.syntaxIssues };
  return { ok: true, value: source.data, source };
}

async function readBoundedText(path: string): Promise<string | { problem: string }> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === 'ENOENT' ? 'file not found' : code === 'ENXIO' ? 'is not a regular file' : `cannot read the file (${code ?? String(error)})` };
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) return { problem: 'is a directory, not a file' };
    if (!stats.isFile()) return { problem: 'is not a regular file (a device, FIFO or socket); only regular files are read' };
    const buffer = Buffer.alloc(Math.min(stats.size, MAX_YAML_FILE_BYTES) + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > MAX_YAML_FILE_BYTES) return { problem: `is larger than ${MAX_YAML_FILE_BYTES} bytes` };
    return buffer.subarray(0, filled).toString('utf8');
  } catch (error) {
    return { problem: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  } finally {
    await handle.close();
  }
}
