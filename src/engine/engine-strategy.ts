import type { Message } from '../contracts/messages.js';
import { freshActiveTask } from '../strategies/react.js';
import type { TaskStrategy } from '../strategies/strategy.js';

/**
 * The outer loop of a dualloop engine run: exactly one task, whose transcript is the one the
 * stream started from (looked up by run id, kept by the engine that owns the map).
 */
export function engineStrategy(transcripts: ReadonlyMap<string, readonly Message[]>): TaskStrategy {
  return {
    name: 'engine',
    async next(input, run, deps) {
      const task = run.tasks[0];
      const transcript = transcripts.get(run.runId);
      if (input.results.length > 0) return { kind: 'stop', stop: { reason: 'goal_achieved', detail: 'the engine task finished', at: deps.clock.now() } };
      if (task === undefined || transcript === undefined) {
        return { kind: 'stop', stop: { reason: 'error', code: 'internal_error', detail: `internal: engine run ${run.runId} has no task or transcript`, at: deps.clock.now() } };
      }
      const fresh = freshActiveTask(task, undefined);
      return { kind: 'task', active: { ...fresh, point: { ...fresh.point, progress: { ...fresh.point.progress, messages: transcript } } } };
    },
    remaining: (results) => Math.max(0, 1 - results.length),
  };
}
