import { describe, expect, it } from 'vitest';
import { main } from '../../examples/features/watch-a-run.js';

describe('examples/features/watch-a-run.ts', () => {
  it('prints the viewer and inspector pages on loopback, and the run’s stop', async () => {
    const lines: string[] = [];
    await main((line) => lines.push(line));
    expect(lines[0]).toMatch(/^viewer: http:\/\/127\.0\.0\.1:\d+\/\?run=run-/);
    expect(lines[1]).toMatch(/^Stately inspector page: http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(lines[2]).toBe('stop: goal_achieved');
  });
});
