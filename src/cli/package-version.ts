import { readFileSync } from 'node:fs';

/** The version in dualloop's package.json, found by walking up from this file (src/ or dist/src/). */
export function packageVersion(): string {
  for (let up = '../'; up.length <= 12; up += '../') {
    try {
      const manifest = JSON.parse(readFileSync(new URL(`${up}package.json`, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'dualloop' && manifest.version !== undefined) return manifest.version;
    } catch {
      // not at this level
    }
  }
  return '0.0.0';
}
