import { chromiumLaunch } from './chromium.js';

/*
 * vitest's globalSetup: unpacks the packaged Chromium and its libraries (ADR 0090, 0102) once,
 * before any test file runs, so the first browser test does not spend its timeout on a fresh
 * machine's unpack (several seconds for ~180 MB) while other files unpack the same. A failure here
 * is left to the browser tests, which report it in one line; it is a no-op once unpacked.
 */
export default async function unpackChromium(): Promise<void> {
  try {
    await chromiumLaunch();
  } catch {
    // The browser tests fail with the one-line message; tests that need no browser still run.
  }
}
