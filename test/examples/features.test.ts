import { describe, expect, it } from 'vitest';
import { main as contextHooks } from '../../examples/features/context-hooks.js';
import { main as engineAdapter } from '../../examples/features/engine-adapter.js';
import { main as hooks } from '../../examples/features/hooks.js';
import { main as steering } from '../../examples/features/steering.js';
import { main as toolExecution } from '../../examples/features/tool-execution.js';
import { main as wrapUp } from '../../examples/features/wrap-up.js';

// Each docs page has a runnable example under examples/features/ (compiled by `tsc` with the
// sources). Each exports `main(log)`; here it runs with a capturing log and its story is checked.

async function linesOf(main: (log: (line: string) => void) => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  await main((line) => lines.push(line));
  return lines;
}

describe('feature examples', () => {
  it('tool-execution: parallel lookups together, the sequential save after them, results in source order', async () => {
    const lines = await linesOf(toolExecution);
    const save = lines.findIndex((line) => line.includes('save starts'));
    const lookupEnds = lines.flatMap((line, index) => (line.includes('ends') && line.includes('lookup') ? [index] : []));
    expect(lookupEnds).toHaveLength(3);
    expect(Math.max(...lookupEnds)).toBeLessThan(save);
    expect(lines).toContain('results, in source order: Oslo: sunny | Lima: sunny | Pune: sunny | saved 14 characters');
    expect(lines.at(-1)).toBe('task: planner_stopped');
  });

  it('hooks: blocked, rewritten, redacted', async () => {
    expect(await linesOf(hooks)).toEqual([
      'model saw: Error: blocked: destructive commands are not allowed',
      'model saw: ran: timeout 10 ls',
      'model saw: user=admin password=[hidden]',
      'task: planner_stopped',
    ]);
  });

  it('steering: the steer reaches the next call, the follow-up the call after the answer', async () => {
    expect(await linesOf(steering)).toEqual([
      'model call 1 sees: How do I paginate?',
      'model call 2 sees: How do I paginate? / Only consider the v2 API.',
      'model call 3 sees: How do I paginate? / Only consider the v2 API. / Now show a request example.',
      'answer: Example: GET /v2/items?cursor=abc',
    ]);
  });

  it('context-hooks: pruned view, ephemeral note, terminate, shouldStopAfterTurn', async () => {
    expect(await linesOf(contextHooks)).toEqual([
      'third call sees 6 messages; tool outputs: 21, 507 characters',
      'third call ends with: (turn 3; be concise)',
      'task: tool_terminated with 3 model calls; stored transcript has no ephemeral note: true',
      'shouldStopAfterTurn: goal_achieved after 2 turns',
    ]);
  });

  it('wrap-up: one tool-less call after the bound, its answer is the output', async () => {
    expect(await linesOf(wrapUp)).toEqual([
      'stop: max_turns (turn 3 reached maxTurns=3)',
      'turns: 3, model calls: 4, tools offered on the last call: 0',
      'output: Best answer so far: the bug is in the retry loop.',
    ]);
  });

  it('engine-adapter: both engines tell the same story; state continues on one and is refused by the other', async () => {
    const lines = await linesOf(engineAdapter);
    const story = (engineId: string) => lines.filter((line) => line.startsWith(`${engineId}: `)).map((line) => line.slice(engineId.length + 2));
    expect(story('dualloop')).toEqual(story('loop'));
    expect(story('loop').at(-1)).toBe('done planner_stopped: It is 21°C in Paris.');
    expect(lines).toContain('resumed loop: Yes, take sunglasses.');
    expect(lines.at(-1)).toMatch(/^refused: engine_state_mismatch: engine "dualloop" cannot load a state saved by engine "loop"/);
  });
});
