import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built package, as users import it: its entries resolved through package.json's exports
// (npm test builds it first), from the package's own directory.
const packageDir = fileURLToPath(new URL('../../', import.meta.url));
const ownBuild = (url: string) => url.startsWith(new URL('../../dist/', import.meta.url).href);

/** The module URLs a fresh Node process resolves while importing `entry`, then calling `after`. */
function modulesLoadedBy(entry: string, after = ''): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ resolve(specifier, context, next) { const resolved = next(specifier, context); seen.push(resolved.url); return resolved; } });
    const entry = await import(${JSON.stringify(entry)});
    ${after}
    process.stdout.write(JSON.stringify(seen));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '--eval', script], { encoding: 'utf8', cwd: packageDir });
  expect(child.stderr).toBe('');
  return JSON.parse(child.stdout) as string[];
}

const heavy = [
  /\/node_modules\/openai\//,
  /\/node_modules\/@statelyai\/inspect\//,
  /\/node_modules\/ws\//,
  /\/dist\/(src\/viewer\/|bundle\/viewer\.js)/,
  /\/dist\/(src\/inspect\/|bundle\/inspect\.js)/,
  // The ecosystem adapters (issue 20) load their packages on use: a run opening mcpTools(), the first traced run.
  /\/node_modules\/@modelcontextprotocol\//,
  /\/node_modules\/@opentelemetry\//,
  /\/node_modules\/@ai-sdk\//,
  // Postgres and the workers (issues 18, 19) load their drivers when a store or worker opens.
  /\/node_modules\/pg\//,
  /\/node_modules\/pg-boss\//,
];

describe('the root entry (ADR 0122)', () => {
  it('loads neither the openai SDK, nor the inspector and ws, nor the viewer server', () => {
    const loaded = modulesLoadedBy('dualloop');
    // The bundle (ADR/0381): the entry and the one chunk of everything it imports statically.
    expect(loaded.filter(ownBuild).map((url) => url.replace(/.*\/dist\//, '').replace(/-[\w-]+\.js$/, '.js'))).toEqual(['bundle/index.js', 'bundle/chunks/core.js']);
    expect(loaded.filter((url) => heavy.some((pattern) => pattern.test(url)))).toEqual([]);
  });

  it('loads the openai SDK on the first call of an openaiModel, not when it is created', () => {
    const created = modulesLoadedBy('dualloop', `entry.openaiModel({ model: 'gpt-test', apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9' });`);
    expect(created.some((url) => url.includes('/node_modules/openai/'))).toBe(false);
    const called = modulesLoadedBy(
      'dualloop',
      `const model = entry.openaiModel({ model: 'gpt-test', apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9', maxRetries: 0 });
       const result = await model.call({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal: AbortSignal.abort(), callIndex: 0, onTextDelta() {} });
       if (result.type !== 'failure') throw new Error('expected a failure');`,
    );
    expect(called.some((url) => url.includes('/node_modules/openai/'))).toBe(true);
  });

  it('does not load pg-boss nor pg when a worker is created (only its start() connects)', () => {
    const created = modulesLoadedBy('dualloop', `entry.createWorker({ connectionString: 'postgres://127.0.0.1:9/none', workflows: { w: () => ({}) } });`);
    expect(created.filter((url) => /\/node_modules\/pg(-boss)?\//.test(url))).toEqual([]);
  });

  it('serves the viewer and the inspector from their own entries', () => {
    const root = new Set(modulesLoadedBy('dualloop'));
    const viewer = modulesLoadedBy('dualloop/viewer');
    expect(viewer.some((url) => url.endsWith('/dist/bundle/viewer.js'))).toBe(true);
    expect(viewer.filter((url) => ownBuild(url) && !root.has(url)).length).toBeGreaterThan(1);
    expect(modulesLoadedBy('dualloop/inspect').some((url) => url.includes('/node_modules/@statelyai/inspect/'))).toBe(true);
  });
});
