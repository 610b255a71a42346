/**
 * Whether a Node version satisfies an `engines.node` range, for the forms npm packages use:
 * alternatives joined by `||`, each a space-separated list of comparators `>=`, `>`, `<=`, `<`,
 * `=`, `^`, `~` or none, on versions of one to three parts (`22`, `12.13`, `10.x`). Anything
 * else throws, naming the range, rather than guess.
 */
type Version = readonly [number, number, number];

const COMPARATOR = /^(>=|<=|>|<|=|\^|~)?v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/;

function parseVersion(version: string): Version {
  const parts = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (parts === null) throw new Error(`not a version: ${version}`);
  return [Number(parts[1]), Number(parts[2]), Number(parts[3])];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

function satisfiesComparator(version: Version, comparator: string, range: string): boolean {
  const match = COMPARATOR.exec(comparator);
  if (match === null) throw new Error(`engines.node range not understood: "${range}"`);
  const [, operator = '=', major, minor, patch] = match;
  const given = [major, minor, patch].filter((part) => part !== undefined && part !== 'x' && part !== '*').length;
  const bound: Version = [Number(major), given > 1 ? Number(minor) : 0, given > 2 ? Number(patch) : 0];
  const order = compare(version, bound);
  // The first version after every version the bound's given parts name ("22" → 23.0.0, "22.1" → 22.2.0).
  const next: Version = given === 1 ? [bound[0] + 1, 0, 0] : given === 2 ? [bound[0], bound[1] + 1, 0] : [bound[0], bound[1], bound[2] + 1];
  switch (operator) {
    case '>=':
      return order >= 0;
    case '>':
      return compare(version, next) >= 0;
    case '<':
      return order < 0;
    case '<=':
      return compare(version, next) < 0;
    case '^':
      return order >= 0 && (bound[0] > 0 ? version[0] === bound[0] : compare(version, next) < 0);
    case '~':
      return order >= 0 && compare(version, given === 1 ? next : [bound[0], bound[1] + 1, 0]) < 0;
    default:
      return order >= 0 && compare(version, next) < 0;
  }
}

export function satisfiesNodeRange(version: string, range: string): boolean {
  const parsed = parseVersion(version);
  const alternatives = range.split('||').map((alternative) => {
    const comparators = alternative.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1').split(/\s+/).filter((part) => part !== '');
    // Every comparator is read (and a form not understood throws) before any is judged.
    const results = comparators.map((comparator) => comparator === '*' || comparator === 'x' || satisfiesComparator(parsed, comparator, range));
    return results.every(Boolean);
  });
  return alternatives.some(Boolean);
}
