import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { chromiumLaunch } from '../support/chromium.js';

/** Where the browser tests leave their screenshots (gitignored). */
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/viewer/', import.meta.url));

export interface TestBrowser {
  readonly page: Page;
  /** Every URL the page requested, in order. */
  readonly requests: readonly string[];
  /** Console errors and uncaught page errors. */
  readonly errors: readonly string[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Headless Chromium (from npm, or CHROMIUM_PATH) with a fresh profile, driven by playwright-core.
 * A missing Chromium fails the test with one line saying how to get one (it never skips): the
 * viewer's browser tests are part of the suite.
 */
export async function openBrowser(): Promise<TestBrowser> {
  const launch = await chromiumLaunch();
  const profile = mkdtempSync(join(tmpdir(), 'dualloop-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: launch.executablePath,
      headless: true,
      args: [...launch.args],
      env: { ...process.env, ...launch.env },
      viewport: { width: 1500, height: 1100 },
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  const requests: string[] = [];
  const errors: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    page,
    requests,
    errors,
    screenshot: async (name) => {
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    },
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Requests that left the given origin (data: and about: URLs stay in the page). */
export function foreignRequests(requests: readonly string[], origin: string): string[] {
  return requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:') && !url.startsWith('about:'));
}

/** The paths of a machine's highlighted states. */
export function activeStates(page: Page, machine: 'workflow' | 'turn'): Promise<string[]> {
  return page.locator(`[data-machine="${machine}"] [data-state][data-active="true"]`).evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-state') ?? ''));
}
