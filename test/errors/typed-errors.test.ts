import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  ConfigErrorCode,
  createKernel,
  defineTool,
  EngineError,
  EngineErrorCode,
  ErrorCode,
  FailureCode,
  FailureError,
  isDualloopError,
  McpError,
  McpErrorCode,
  memoryStore,
  RunError,
  RunErrorCode,
  StoreError,
  StoreErrorCode,
  keepRecentTurns,
  WorkerError,
  WorkerErrorCode,
  type KernelEvent,
} from 'dualloop';
import { scriptedModel } from 'dualloop/testing';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** One instance of each family, as dualloop makes them. */
const SAMPLES = [
  new ConfigError({ issues: [{ path: 'model', message: 'required' }] }),
  new RunError({ code: 'run_not_found', runId: 'r1', message: 'run r1 does not exist' }),
  new StoreError({ code: 'store_corrupt', path: '/tmp/x.db', message: 'not a database' }),
  new EngineError({ code: 'engine_busy', engineId: 'loop', message: 'busy' }),
  new McpError({ code: 'server_closed', server: 'files', message: 'closed' }),
  new WorkerError({ code: 'worker_stopped', workerId: 'w1', message: 'stopped' }),
  new FailureError({ code: 'policy_failed', message: 'checkTask threw' }),
];

describe('error codes', () => {
  it('the union is closed: every code belongs to exactly one family', () => {
    const families = [ConfigErrorCode, RunErrorCode, StoreErrorCode, EngineErrorCode, McpErrorCode, WorkerErrorCode, FailureCode].map((family) => family.options as readonly string[]);
    const all = families.flat();
    expect(new Set(all).size).toBe(all.length);
    expect([...ErrorCode.options].sort()).toEqual([...all].sort());
  });

  it('docs/errors.md says when each code happens and what to do', () => {
    const doc = readFileSync(`${ROOT}docs/errors.md`, 'utf8');
    const rows = new Map([...doc.matchAll(/^\| `([a-z_]+)` \| (.+?) \| (.+?) \|$/gm)].map((match) => [match[1]!, [match[2]!, match[3]!]]));
    for (const code of ErrorCode.options) {
      expect(rows.has(code), `docs/errors.md has no row for ${code}`).toBe(true);
      for (const cell of rows.get(code)!) expect(cell.trim().length).toBeGreaterThan(10);
    }
    expect([...rows.keys()].filter((code) => !ErrorCode.safeParse(code).success)).toEqual([]);
  });
});

describe('isDualloopError', () => {
  it('recognizes every family, with or without a code, and nothing else', () => {
    for (const error of SAMPLES) {
      expect(isDualloopError(error)).toBe(true);
      expect(isDualloopError(error, error.code)).toBe(true);
      expect(ErrorCode.safeParse(error.code).success).toBe(true);
    }
    expect(isDualloopError(SAMPLES[1], 'run_exists')).toBe(false);
    for (const other of [new Error('x'), Object.assign(new Error('x'), { code: 'run_not_found' }), { code: 'run_not_found' }, 'run_not_found', undefined, null]) {
      expect(isDualloopError(other)).toBe(false);
    }
  });

  it('narrows to the family of the code', () => {
    const error: unknown = SAMPLES[2];
    if (!isDualloopError(error, 'store_corrupt')) throw new Error('not recognized');
    expect(error.path).toBe('/tmp/x.db');
  });

  it('works across two copies of the package, where instanceof does not', async () => {
    // The built package is a second copy of every class (the tests' `dualloop` is the sources).
    const built = (await import(`${ROOT}dist/bundle/index.js`)) as typeof import('dualloop');
    const foreign = new built.RunError({ code: 'run_held', runId: 'r2', message: 'held elsewhere' });
    expect(foreign instanceof RunError).toBe(false);
    expect(isDualloopError(foreign, 'run_held')).toBe(true);
    expect(built.isDualloopError(SAMPLES[1], 'run_not_found')).toBe(true);
  });
});

describe('thrown and reported errors carry a code', () => {
  it('invalid options and an unknown run are coded errors', async () => {
    let thrown: unknown;
    try {
      createKernel({ model: undefined as never, bounds: { inner: { maxTurns: -1 } } });
    } catch (error) {
      thrown = error;
    }
    expect(isDualloopError(thrown, 'config_invalid')).toBe(true);
    const kernel = createKernel({ model: scriptedModel([]), store: memoryStore() });
    await expect(kernel.resume('nope')).rejects.toSatisfy((error) => isDualloopError(error, 'run_not_found'));
  });

  it('a throwing tool-call policy gate: an error event and an error stop, both policy_failed', async () => {
    const run = createKernel({
      model: scriptedModel([{ toolCalls: [{ name: 'step', args: {} }] }, { text: 'done' }]),
      tools: [defineTool({ name: 'step', description: 'One step.', parameters: z.object({}), execute: () => 'stepped' })],
      policy: {
        checkToolCall: () => {
          throw new Error('gate down');
        },
      },
    }).start(['task']);
    const events: KernelEvent[] = [];
    for await (const event of run) events.push(event);
    const result = await run.result;
    expect(events.filter((event) => event.type === 'error').map((event) => event.code)).toEqual(['policy_failed']);
    expect(result.stop).toMatchObject({ reason: 'error', code: 'policy_failed' });
  });

  it('a stop evaluator that answers `error`: the stop and its error event carry error_verdict (inner and outer)', async () => {
    const verdict = () => ({ reason: 'error' as const, detail: 'the answer is wrong' });
    for (const stopEvaluators of [{ inner: [verdict] }, { outer: [verdict] }]) {
      const run = createKernel({ model: scriptedModel([{ text: 'done' }, { text: 'done' }]), stopEvaluators }).start(['first', 'second']);
      const events: KernelEvent[] = [];
      for await (const event of run) events.push(event);
      const result = await run.result;
      expect(result.stop).toMatchObject({ reason: 'error', code: 'error_verdict', detail: expect.stringContaining('the answer is wrong') });
      expect(events.filter((event) => event.type === 'error').map((event) => event.code)).toEqual(['error_verdict']);
    }
  });

  it('misuse at the caller is a coded ConfigError: a bad compactor option, an empty steering message', async () => {
    expect(() => keepRecentTurns({ keep: 1 })).toThrow(expect.objectContaining({ code: 'config_invalid', issues: [expect.objectContaining({ path: 'keep' })] }));
    const run = createKernel({ model: scriptedModel([{ text: 'done' }]) }).start(['task']);
    expect(() => run.steer('')).toThrow(expect.objectContaining({ code: 'config_invalid' }));
    expect(() => run.followUp(42 as never)).toThrow(expect.objectContaining({ code: 'config_invalid' }));
    await run.result;
  });
});
