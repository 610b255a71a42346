import { constants, type Stats } from 'node:fs';
import { lstat, open, readlink, realpath, stat, type FileHandle } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

export type EntryKind = 'file' | 'directory';

/** A descriptor opened under the root and verified: what was opened is inside the root and of the kind asked for. */
export interface ConfinedHandle {
  readonly handle: FileHandle;
  readonly stats: Stats;
  /** The opened entry's path relative to the root, `/`-separated (`.` for the root). */
  readonly shown: string;
  /** The path that names this very descriptor (`/proc/self/fd/N`), or its verified real path where there is no such name. */
  readonly descriptorPath: string;
}

// Never check a path and then open it by the same path: a symbolic link swapped in between escapes
// (ADR 0110). The path is checked first only to give a readable error; the decision is taken on the
// descriptor: opened with O_NOFOLLOW and O_NONBLOCK (a FIFO cannot block the open), then its type
// comes from fstat and its location from the kernel's own name for it (/proc/self/fd/N).
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const DESCRIPTOR_DIRECTORY = '/proc/self/fd';

/**
 * Opens `requested` (relative to `root`) as `kind`, or throws an Error a model can read. Refuses
 * absolute paths, `..` escapes, symbolic links that lead outside the root (however and whenever
 * they appear), and anything but a regular file or a directory (FIFO, socket, device) without
 * opening it for reading. The caller closes `handle`.
 */
export async function openInsideRoot(root: string, requested: string, kind: EntryKind): Promise<ConfinedHandle> {
  try {
    return await openVerified(root, requested, kind);
  } catch (error) {
    throw withoutAbsolutePaths(requested, error);
  }
}

/**
 * A file-system error as the model may read it: Node's own messages name the absolute path
 * (`ENOENT: no such file or directory, lstat '/home/…'`), which tells the model where the root is.
 * Errors of the file tools themselves already speak of the requested, root-relative path.
 */
export function withoutAbsolutePaths(requested: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string' || typeof (error as NodeJS.ErrnoException).syscall !== 'string') return error;
  switch (code) {
    case 'ENOENT':
      return new Error(`"${requested}" does not exist`);
    case 'ENOTDIR':
      return new Error(`"${requested}": a part of the path is not a directory`);
    case 'ELOOP':
      return new Error(`"${requested}" leads into a loop of symbolic links`);
    case 'ENAMETOOLONG':
      return new Error(`"${requested}" is too long a path`);
    case 'EACCES':
    case 'EPERM':
      return new Error(`"${requested}" cannot be read (permission denied)`);
    default:
      return new Error(`"${requested}" cannot be read (${code})`);
  }
}

async function openVerified(root: string, requested: string, kind: EntryKind): Promise<ConfinedHandle> {
  if (requested.includes('\0')) throw new Error('the path contains a NUL character');
  if (isAbsolute(requested)) throw new Error(`"${requested}" is absolute; paths are relative to the tool's root directory`);
  const realRoot = await realpath(root).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`the tool's root directory cannot be opened (${error.code ?? 'error'})`);
  });
  const candidate = resolve(realRoot, requested);
  if (!isInside(realRoot, candidate)) throw new Error(`"${requested}" is outside the tool's root directory`);
  const real = await realpath(candidate).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'ENOENT' ? new Error(`"${requested}" does not exist`) : error;
  });
  const outside = () => new Error(`"${requested}" is a symbolic link that leads outside the tool's root directory`);
  if (!isInside(realRoot, real)) throw outside();
  refuseKind(requested, await lstat(real), kind);

  const flags = OPEN_FLAGS | (kind === 'directory' ? (constants.O_DIRECTORY ?? 0) : 0);
  const handle = await open(real, flags).catch((error: NodeJS.ErrnoException) => {
    throw openError(requested, error, kind);
  });
  try {
    const stats = await handle.stat();
    refuseKind(requested, stats, kind);
    const opened = await openedPath(handle, real, stats);
    if (opened === undefined || !isInside(realRoot, opened.path)) throw outside();
    return { handle, stats, shown: relative(realRoot, opened.path).split(sep).join('/') || '.', descriptorPath: opened.descriptorPath };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Where the kernel says the descriptor is; elsewhere than Linux, the real path when it is still the same file. */
async function openedPath(handle: FileHandle, real: string, stats: Stats): Promise<{ path: string; descriptorPath: string } | undefined> {
  const descriptorPath = `${DESCRIPTOR_DIRECTORY}/${handle.fd}`;
  const path = await readlink(descriptorPath).catch(() => undefined);
  if (path !== undefined && isAbsolute(path)) return { path, descriptorPath };
  // No /proc: accept only when the real path (re-resolved) still names the very file we hold.
  const again = await realpath(real).catch(() => undefined);
  if (again === undefined) return undefined;
  const now = await stat(again).catch(() => undefined);
  return now !== undefined && now.dev === stats.dev && now.ino === stats.ino ? { path: again, descriptorPath: again } : undefined;
}

function refuseKind(requested: string, stats: Stats, kind: EntryKind): void {
  if (kind === 'file' && stats.isDirectory()) throw new Error(`"${requested}" is a directory; use list_files`);
  if (kind === 'directory' && stats.isFile()) throw new Error(`"${requested}" is not a directory; use read_file`);
  if (!stats.isFile() && !stats.isDirectory()) {
    throw new Error(`"${requested}" is ${describeKind(stats)}, not a regular file; only regular files and directories are read`);
  }
}

function describeKind(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSymbolicLink()) return 'a symbolic link that changed while it was opened';
  return 'a special file';
}

function openError(requested: string, error: NodeJS.ErrnoException, kind: EntryKind): Error {
  switch (error.code) {
    case 'ELOOP':
    case 'ENOENT':
      return new Error(`"${requested}" changed while it was being opened; try again`);
    case 'ENXIO':
      return new Error(`"${requested}" is not a regular file; only regular files and directories are read`);
    case 'ENOTDIR':
      return new Error(kind === 'directory' ? `"${requested}" is not a directory; use read_file` : `"${requested}" changed while it was being opened; try again`);
    case 'EACCES':
    case 'EPERM':
      return new Error(`"${requested}" cannot be read (permission denied)`);
    default:
      return new Error(`"${requested}" cannot be opened: ${error.code ?? error.message}`);
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
