import { expect, it } from 'vitest';
import { main } from '../../examples/features/durable-store.js';

it('examples/features/durable-store.ts resumes the cut run in a second kernel and audits it', async () => {
  const lines: string[] = [];
  await main((line) => lines.push(line));
  expect(lines[0]).toBe('first process: context_canceled after 1 of 2 tasks');
  expect(lines[1]).toBe('second process: goal_achieved; model calls made: 2, 3');
  expect(lines.slice(2, 4)).toEqual(['  task-1: planner_stopped after 2 turns, 1 tool call(s)', '  task-2: planner_stopped after 2 turns, 1 tool call(s)']);
  expect(lines[4]).toMatch(/^events in the log: \d+$/);
});
