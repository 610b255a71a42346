import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const from = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Tests import the package by its public names, resolved to the sources.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^dualloop\/testing$/, replacement: from('./src/testing/index.ts') },
      { find: /^dualloop\/viewer$/, replacement: from('./src/viewer/index.ts') },
      { find: /^dualloop\/inspect$/, replacement: from('./src/inspect/index.ts') },
      { find: /^dualloop$/, replacement: from('./src/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ when it is missing or older than the sources (the CLI and package tests use it);
    // the packaged Chromium unpacked once (ADR 0102); one throwaway Postgres server per run (or DATABASE_URL), its URL provided to the test files.
    globalSetup: ['test/support/build-dist.ts', 'test/support/chromium-global-setup.ts', 'test/support/postgres-global-setup.ts'],
    // At least two test files at once: vitest's own default (one fewer than the cores) runs one at a
    // time on a 2-core machine, where most of a file's time is spent waiting on the processes and
    // servers it starts (ADR 0394).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 20_000,
    // A browser or a server several processes away answers in well under a second when the machine
    // is idle, and in several when the whole suite shares two cores: polls wait up to 10 s.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 20_000,
  },
});
