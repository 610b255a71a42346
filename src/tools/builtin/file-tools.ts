import { opendir, type FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import type { Tool } from '../../contracts/tool.js';
import { defineTool } from '../define-tool.js';
import { openInsideRoot, withoutAbsolutePaths } from './confined-path.js';

export interface FileToolOptions {
  /** The directory the tool may read; nothing outside it is reachable. */
  readonly root: string;
  /** `read_file`: most bytes returned per call (default 65 536); longer files are cut and marked `truncated`. */
  readonly maxBytes?: number;
}

export const DEFAULT_MAX_BYTES = 65_536;
const MAX_ENTRIES = 500;
/** A directory with more entries than this is listed from the first ones read (not the whole directory). */
const MAX_SCANNED = 10_000;

/** `read_file`: reads a UTF-8 text file under `root`. Read-only; refuses escapes, symlinks out, special and binary files. */
export function readFileTool(options: FileToolOptions): Tool {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  return defineTool({
    name: 'read_file',
    description: `Reads a text file from the workspace directory. Paths are relative to that directory. Returns at most ${maxBytes} bytes.`,
    parameters: z.object({ path: z.string().min(1).describe('Relative path, for example "data/receipts.csv"') }),
    executionMode: 'parallel',
    execute: async ({ path }) => {
      const { handle, stats, shown } = await openInsideRoot(options.root, path, 'file');
      try {
        return await readBounded(handle, stats.size, maxBytes, path, shown);
      } catch (error) {
        throw withoutAbsolutePaths(path, error);
      } finally {
        await handle.close();
      }
    },
  });
}

/** Reads at most `maxBytes` of an opened file as UTF-8 text; a NUL byte means binary and is refused. */
async function readBounded(handle: FileHandle, size: number, maxBytes: number, path: string, shown: string) {
  // At most maxBytes + 1 bytes are ever read, whatever size the file claims or grows to.
  const buffer = Buffer.alloc(maxBytes + 1);
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  const bytes = buffer.subarray(0, Math.min(filled, maxBytes));
  if (bytes.includes(0)) throw new Error(`"${path}" looks like a binary file`);
  return { path: shown, size: Math.max(size, filled), truncated: filled > maxBytes, content: bytes.toString('utf8') };
}

/** `list_files`: lists a directory under `root` (names, kinds and sizes), at most 500 entries. */
export function listFilesTool(options: Pick<FileToolOptions, 'root'>): Tool {
  return defineTool({
    name: 'list_files',
    description: 'Lists the files and directories in a directory of the workspace. Paths are relative to the workspace directory.',
    parameters: z.object({ path: z.string().min(1).default('.').describe('Relative directory path; default the workspace root') }),
    executionMode: 'parallel',
    execute: async ({ path }) => {
      const { handle, shown, descriptorPath } = await openInsideRoot(options.root, path, 'directory');
      const listed: { name: string; type: string }[] = [];
      let more = false;
      try {
        // Read through the descriptor's own name, never the path again; stop scanning at a bound.
        const directory = await opendir(descriptorPath);
        try {
          for await (const entry of directory) {
            if (listed.length >= MAX_SCANNED) {
              more = true;
              break;
            }
            listed.push({ name: entry.name, type: entry.isDirectory() ? 'directory' : entry.isFile() ? 'file' : entry.isSymbolicLink() ? 'symlink' : 'other' });
          }
        } finally {
          await directory.close().catch(() => undefined);
        }
      } catch (error) {
        throw withoutAbsolutePaths(path, error);
      } finally {
        await handle.close();
      }
      listed.sort((a, b) => a.name.localeCompare(b.name));
      return { path: shown, entries: listed.slice(0, MAX_ENTRIES), truncated: more || listed.length > MAX_ENTRIES };
    },
  });
}
