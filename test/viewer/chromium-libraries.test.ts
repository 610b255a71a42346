import { spawnSync } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { chromiumLaunch } from '../support/chromium.js';

/*
 * The packaged Chromium links NSS, NSPR and expat, which a slim machine lacks (ADR 0102). The test
 * support unpacks the copies @sparticuz/chromium ships and points LD_LIBRARY_PATH at them: the
 * dynamic loader's own trace (glibc's LD_DEBUG=libs) shows where each one was loaded from.
 */

const SHIPPED = ['libnss3.so', 'libnssutil3.so', 'libnspr4.so', 'libplc4.so', 'libplds4.so', 'libexpat.so.1'];

describe('the packaged Chromium on a machine without NSS', () => {
  it('loads every library it links beyond glibc from the package, not from the system', async () => {
    vi.stubEnv('CHROMIUM_PATH', '');
    try {
      const launch = await chromiumLaunch();
      const libraries = launch.env['LD_LIBRARY_PATH']?.split(':')[0];
      expect(libraries).toMatch(/dualloop-chromium-[^/]+\/al2023\/lib$/);
      const run = spawnSync(launch.executablePath, ['--version'], {
        env: { ...process.env, ...launch.env, LD_DEBUG: 'libs' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(run.stdout).toMatch(/^Chromium \d+/);
      const loaded = new Map([...run.stderr.matchAll(/calling init: (\S+)/g)].map((match) => [match[1]!.split('/').pop()!, match[1]!]));
      for (const library of SHIPPED) expect(loaded.get(library), library).toBe(`${libraries}/${library}`);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
