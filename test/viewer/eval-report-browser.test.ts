/**
 * The HTML report of `dualloop eval --html` in a real browser: the means and the gate, each case's
 * two sides, the trajectories side by side with the first divergent turn highlighted — and
 * recorded text shown as text, never run, with no request leaving the file.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createKernel, evalReportHtml, outputEquals } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { NODE, ROOT, runCli } from '../cli/cli-process.js';
import { useWorkspace } from '../cli/workspace.js';
import { openBrowser, type TestBrowser } from './browser.js';

const workspace = useWorkspace();
let browser: TestBrowser | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

describe('the eval HTML report', () => {
  it('shows the docs example: means against the gate, the diverging case highlighted at its first different turn', { timeout: 60_000 }, async () => {
    const { dir } = workspace();
    const example = join(ROOT, 'examples/evals');
    expect(spawnSync(NODE, [join(example, 'record.mjs'), 'runs.db'], { cwd: dir, encoding: 'utf8' }).status).toBe(0);
    const result = await runCli(['eval', join(example, 'suite.yaml'), '--store', 'runs.db', '--html', 'report.html', '--fail-under', 'outputEquals=0.9'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('HTML report: report.html');
    const url = pathToFileURL(join(dir, 'report.html')).href;
    browser = await openBrowser();
    const { page } = browser;
    await page.goto(url);
    expect(await page.title()).toBe('dualloop eval — cheaper-model');
    expect(await page.locator('#summary [data-scorer="outputEquals"] [data-mean]').textContent()).toBe('0.667');
    expect(await page.locator('#summary [data-scorer="outputEquals"] .fail').textContent()).toBe('< 0.9 fail');
    expect(await page.locator('#summary [data-scorer="stopReasonMatches"] [data-mean]').textContent()).toBe('1.000');

    const peru = page.locator('section[data-case="capital-peru"]');
    expect(await peru.locator('h2').textContent()).toBe('capital-peru evaluated · diverges at turn 1');
    expect(await peru.locator('[data-output-changed]').getAttribute('data-output-changed')).toBe('true');
    const diverged = peru.locator('tr[data-diverged="true"]');
    expect(await diverged.count()).toBe(1);
    expect(await diverged.getAttribute('data-turn')).toBe('1');
    expect(await diverged.locator('[data-side="baseline"]').textContent()).toContain('country_facts({"country":"Peru"})');
    expect(await diverged.locator('[data-side="candidate"]').textContent()).toContain('Cusco');
    // Highlighted: the diverging row's cells have the highlight colour, the rows before none.
    expect(await diverged.locator('td').first().evaluate((cell) => getComputedStyle(cell).backgroundColor)).toBe('rgb(255, 241, 214)');
    expect(await peru.locator('tr[data-scorer="outputEquals"]').textContent()).toContain('got "Cusco", expected "Lima"');

    const france = page.locator('section[data-case="capital-france"]');
    expect(await france.locator('tr[data-diverged]').count()).toBe(0);
    expect(await france.locator('table.trajectory tbody tr').count()).toBe(2);
    expect(await france.locator('table.sides').textContent()).toContain('capital-france');
    await browser.screenshot('eval-report');
    expect(browser.errors).toEqual([]);
    expect(browser.requests.filter((request) => request !== url)).toEqual([]);
  });

  it('shows recorded text as text: markup in a model answer is neither run nor fetched', { timeout: 60_000 }, async () => {
    const hostile = '<img src="http://127.0.0.1:9/x.png" onerror="window.pwned=1"><script>window.pwned=2</script>';
    const kernel = createKernel({ model: scriptedModel(() => ({ text: hostile })) });
    const report = await kernel.evaluate([{ name: '<b>case</b>', tasks: ['Say it'], expected: 'plain' }], { suite: 'hostile', scorers: [outputEquals()] });
    const { dir } = workspace();
    writeFileSync(join(dir, 'hostile.html'), evalReportHtml(report));
    expect(readFileSync(join(dir, 'hostile.html'), 'utf8')).not.toContain('<script>window');
    const url = pathToFileURL(join(dir, 'hostile.html')).href;
    browser = await openBrowser();
    const { page } = browser;
    await page.goto(url);
    expect(await page.locator('section.case h2').textContent()).toBe('<b>case</b> evaluated');
    expect(await page.locator('section.case [data-side="candidate"] pre').textContent()).toBe(hostile);
    expect(await page.locator('section.case img, section.case script').count()).toBe(0);
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    expect(browser.requests.filter((request) => request !== url)).toEqual([]);
  });
});
