import { fromCallback } from 'xstate';
import { z } from 'zod';
import { describeIssues } from '../../checkpoint/progress-schema.js';
import { MessageSchema } from '../../contracts/message-schema.js';
import { lazySchema } from '../../contracts/lazy-schema.js';
import type { CompactionCheck, CompactRequest, TurnServiceInput } from '../../../machines/turn.machine.js';
import type { KernelEventBody } from '../../contracts/events.js';
import type { Message } from '../../contracts/messages.js';
import type { TurnCheckpoint, TurnContext } from '../../contracts/turn-protocol.js';
import { describeError } from '../../errors.js';
import { TASK_STOPPED } from '../abort-reasons.js';
import type { KernelDeps } from '../kernel-deps.js';
import { runtimeOf, type RunRegistry } from '../run-runtime.js';

/** The `report` action of both machines: hands an event to the run's sink. */
export function createReport(registry: RunRegistry) {
  return ({ context }: { context: { readonly runId: string } }, event: KernelEventBody) => {
    runtimeOf(registry, context.runId).emit(event);
  };
}

/**
 * NEXT_TURN's `saveTurnCheckpoint`: the intent goes to the run's checkpoint writer, which appends
 * the turn's entry. Synchronous stores write before the next turn starts; a failure ends the task `error`.
 */
export function createSaveTurnCheckpoint(deps: KernelDeps, registry: RunRegistry) {
  return ({ self }: { self: { send: (event: { type: 'CHECKPOINT_FAILED'; message: string; at: number }) => void } }, checkpoint: TurnCheckpoint) => {
    const run = runtimeOf(registry, checkpoint.runId);
    const saved = (sequence: number) =>
      run.emit({ type: 'checkpoint_saved', kind: 'turn', taskId: checkpoint.task.id, taskIndex: checkpoint.task.index, turn: checkpoint.point.progress.turns.length, sequence });
    const failed = (error: unknown) => {
      run.emit({ type: 'error', scope: 'checkpoint', message: describeError(error), taskId: checkpoint.task.id, taskIndex: checkpoint.task.index });
      self.send({ type: 'CHECKPOINT_FAILED', message: describeError(error), at: deps.clock.now() });
    };
    try {
      const pending = run.checkpoints.turn(checkpoint);
      if (pending instanceof Promise) pending.then(saved, failed);
      else saved(pending);
    } catch (error) {
      failed(error);
    }
  };
}

/** The `needsCompaction` guard: asks the compactor; an error is reported and counts as "no". */
export function createNeedsCompaction(deps: KernelDeps, registry: RunRegistry) {
  return ({ context }: { context: TurnContext }, check: CompactionCheck) => {
    try {
      return deps.context.compactor.shouldCompact(check.messages, { turn: check.turn });
    } catch (error) {
      runtimeOf(registry, context.runId).emit({
        type: 'error',
        scope: 'compactor',
        message: `shouldCompact threw (no compaction this turn): ${describeError(error)}`,
        taskId: context.task.id,
        taskIndex: context.task.index,
      });
      return false;
    }
  };
}

const CompactedSchema = lazySchema(() => z.array(MessageSchema()));

/**
 * The compactor: spawned by the turn machine the first time `needsCompaction` says yes, then kept
 * for the rest of the task. Each `compactor.compact` request answers COMPACTED with the new
 * transcript, or COMPACTION_FAILED (it threw, or returned something that is not a list of
 * messages); stopping the task aborts a compaction in flight.
 */
export function createCompactorActor(deps: KernelDeps) {
  return fromCallback<CompactRequest, TurnServiceInput>(({ receive, sendBack }) => {
    const controller = new AbortController();
    receive((request) => {
      Promise.resolve()
        .then(() => deps.context.compactor.compact(request.messages, controller.signal))
        .then(
          (messages) => {
            if (controller.signal.aborted) return;
            // User code: a transcript that is not a list of messages ends the task here, named, not later in the loop.
            const parsed = CompactedSchema().safeParse(messages);
            if (parsed.success) sendBack({ type: 'COMPACTED', messages });
            else sendBack({ type: 'COMPACTION_FAILED', message: `compact returned no list of messages (${describeIssues(parsed.error)})` });
          },
          (error: unknown) => {
            if (!controller.signal.aborted) sendBack({ type: 'COMPACTION_FAILED', message: `compact threw: ${describeError(error)}` });
          },
        );
    });
    return () => controller.abort(TASK_STOPPED);
  });
}
