import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { z } from 'zod';
import type { Tool } from '../../contracts/tool.js';
import { defineTool } from '../define-tool.js';
import { resolveInsideRoot } from './confined-path.js';

export interface FileToolOptions {
  /** The directory the tool may read; nothing outside it is reachable. */
  readonly root: string;
  /** `read_file`: most bytes returned per call (default 65 536); longer files are cut and marked `truncated`. */
  readonly maxBytes?: number;
}

export const DEFAULT_MAX_BYTES = 65_536;
const MAX_ENTRIES = 500;

/** `read_file`: reads a UTF-8 text file under `root`. Read-only; refuses escapes, symlinks out and binary files. */
export function readFileTool(options: FileToolOptions): Tool {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  return defineTool({
    name: 'read_file',
    description: `Reads a text file from the workspace directory. Paths are relative to that directory. Returns at most ${maxBytes} bytes.`,
    parameters: z.object({ path: z.string().min(1).describe('Relative path, for example "data/receipts.csv"') }),
    executionMode: 'parallel',
    execute: async ({ path }) => {
      const { real, shown } = await resolveInsideRoot(options.root, path);
      const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        const stats = await handle.stat();
        if (stats.isDirectory()) throw new Error(`"${path}" is a directory; use list_files`);
        if (!stats.isFile()) throw new Error(`"${path}" is not a regular file`);
        const buffer = Buffer.alloc(Math.min(stats.size, maxBytes));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
        const bytes = buffer.subarray(0, bytesRead);
        if (bytes.includes(0)) throw new Error(`"${path}" looks like a binary file`);
        return { path: shown, size: stats.size, truncated: stats.size > bytesRead, content: bytes.toString('utf8') };
      } finally {
        await handle.close();
      }
    },
  });
}

/** `list_files`: lists a directory under `root` (names, kinds and sizes), at most 500 entries. */
export function listFilesTool(options: Pick<FileToolOptions, 'root'>): Tool {
  return defineTool({
    name: 'list_files',
    description: 'Lists the files and directories in a directory of the workspace. Paths are relative to the workspace directory.',
    parameters: z.object({ path: z.string().min(1).default('.').describe('Relative directory path; default the workspace root') }),
    executionMode: 'parallel',
    execute: async ({ path }) => {
      const { real, shown } = await resolveInsideRoot(options.root, path);
      const entries = await readdir(real, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
        throw new Error(error.code === 'ENOTDIR' ? `"${path}" is not a directory; use read_file` : error.message);
      });
      const listed = entries
        .map((entry) => ({ name: entry.name, type: entry.isDirectory() ? 'directory' : entry.isFile() ? 'file' : entry.isSymbolicLink() ? 'symlink' : 'other' }))
        .sort((a, b) => a.name.localeCompare(b.name));
      return { path: shown, entries: listed.slice(0, MAX_ENTRIES), truncated: listed.length > MAX_ENTRIES };
    },
  });
}
