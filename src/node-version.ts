/**
 * The Node.js dualloop needs (package.json `engines`): 22.13, the first release line where
 * `node:sqlite` loads without a flag. Checked by the CLI before anything else loads (src/cli/bin.ts)
 * and by `sqliteStore` when it first needs `node:sqlite`; the rest of the library does not need it.
 */
export const REQUIRED_NODE = '>=22.13';
const MINIMUM = [22, 13] as const;

/** One line saying which Node is needed and which was found, or `undefined` when this one will do. */
export function nodeVersionProblem(what: string, version: string = process.versions.node): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major > MINIMUM[0] || (major === MINIMUM[0] && minor >= MINIMUM[1])) return undefined;
  return `${what} needs Node.js ${REQUIRED_NODE} (for node:sqlite); this is Node.js ${version}`;
}
