import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * Resolves `requested` (relative to `root`) to a real path inside `root`, or throws an Error a
 * model can read. Refuses absolute paths, `..` escapes, and symbolic links that lead outside
 * the root (the check runs on the fully resolved path, so a link anywhere on the way counts).
 */
export async function resolveInsideRoot(root: string, requested: string): Promise<{ readonly real: string; readonly shown: string }> {
  if (requested.includes('\0')) throw new Error('the path contains a NUL character');
  if (isAbsolute(requested)) throw new Error(`"${requested}" is absolute; paths are relative to the tool's root directory`);
  const realRoot = await realpath(root);
  const candidate = resolve(realRoot, requested);
  if (!isInside(realRoot, candidate)) throw new Error(`"${requested}" is outside the tool's root directory`);
  let real: string;
  try {
    real = await realpath(candidate);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`"${requested}" does not exist`);
    throw error;
  }
  if (!isInside(realRoot, real)) throw new Error(`"${requested}" is a symbolic link that leads outside the tool's root directory`);
  return { real, shown: relative(realRoot, real).split(sep).join('/') || '.' };
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
