/**
 * Model-based tests: walk the pure machine definitions with xstate's graph utilities, feeding the
 * events their services would send. Every stop reason must be reachable, and from every reachable
 * state a final DONE must still be reachable (no state can trap a run).
 */
import { describe, expect, it } from 'vitest';
import type { AnyEventObject, AnyMachineSnapshot } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { StopReason } from 'dualloop';
import { turnMachine } from '../../machines/turn.machine.js';
import { workflowMachine } from '../../machines/workflow.machine.js';
import { modelFailure, stop, taskOutput, textAnswer, toolAnswer, toolResult, turnInput } from './turn-fixtures.js';

const INNER_REASONS = StopReason.options.filter((reason) => !['max_workflow_steps', 'max_session_runtime', 'max_replans'].includes(reason));

/** Coarse enough to keep the graph finite (turn counts are left out), fine enough to tell the paths apart. */
const serialize = (snapshot: AnyMachineSnapshot) =>
  JSON.stringify([
    snapshot.value,
    snapshot.status,
    snapshot.context.stop?.reason,
    snapshot.context.current?.wrapUp,
    snapshot.context.wrapUp !== undefined,
    snapshot.context.compacting,
    snapshot.context.pendingStop?.reason,
  ]);

function turnEvents(snapshot: AnyMachineSnapshot): AnyEventObject[] {
  // A stopped actor takes no more events; the graph walk must not either.
  if (snapshot.status === 'done') return [];
  const anywhere = [
    { type: 'CANCEL', stop: stop('context_canceled') },
    { type: 'CHECKPOINT_FAILED', message: 'disk full', at: 1 },
    { type: 'xstate.after.taskDeadline.turn' },
    { type: 'STEER', message: { id: 1, content: 'steer' } },
  ];
  switch (snapshot.value) {
    case 'TURN_INIT':
      return [...anywhere, { type: 'COMPACTED', messages: [] }, { type: 'COMPACTION_FAILED', message: 'x' }];
    case 'PLAN':
      return [...anywhere, ...[textAnswer, toolAnswer, modelFailure].map((result) => ({ type: 'MODEL_DONE', result, at: 1 }))];
    case 'ACT':
      return [...anywhere, { type: 'TOOLS_DONE', results: [toolResult], at: 1 }, { type: 'TOOLS_FAILED', failure: { scope: 'hook', message: 'x' }, results: [], at: 1 }];
    case 'CHECK_STOP':
      return [...anywhere, { type: 'STOP_DECIDED', stop: undefined, at: 1 }, ...INNER_REASONS.map((reason) => ({ type: 'STOP_DECIDED', stop: stop(reason), at: 1 }))];
    default:
      return anywhere;
  }
}

// Compaction runs on the second turn, so the walk also covers TURN_INIT waiting for the compactor.
const turnLogic = turnMachine.provide({ guards: { needsCompaction: (_, check) => check.turn === 2 } });

interface Path {
  readonly state: AnyMachineSnapshot;
  readonly steps: readonly { readonly event: AnyEventObject }[];
}

function walk(logic: typeof turnLogic | typeof workflowMachine, input: unknown, events: (snapshot: AnyMachineSnapshot) => AnyEventObject[]): Path[] {
  return getShortestPaths(logic as never, { input: input as never, events: events as never, serializeState: serialize as never, limit: 5_000 }) as unknown as Path[];
}

function assertNoTraps(logic: typeof turnLogic | typeof workflowMachine, input: unknown, events: (snapshot: AnyMachineSnapshot) => AnyEventObject[]) {
  const reachable = walk(logic, input, events);
  for (const path of reachable) {
    if (path.state.status === 'done') continue;
    const toDone: unknown[] = getShortestPaths(logic as never, {
      fromState: path.state as never,
      events: events as never,
      serializeState: serialize as never,
      toState: (snapshot: AnyMachineSnapshot) => snapshot.status === 'done',
      limit: 5_000,
    });
    expect(toDone.length, `no way to DONE from ${serialize(path.state)}`).toBeGreaterThan(0);
  }
  return reachable;
}

describe('the turn machine (model-based)', () => {
  const paths = assertNoTraps(turnLogic, turnInput(), turnEvents);
  const finals = paths.filter((path) => path.state.status === 'done');

  it('visits every state of the inner loop', () => {
    const visited = new Set(paths.map((path) => path.state.value as string));
    expect([...visited].sort()).toEqual(['ACT', 'CHECK_STOP', 'DONE', 'PLAN', 'TURN_INIT'].sort());
    // NEXT_TURN is transient (always → TURN_INIT); it is on every path that reaches a second turn.
    expect(paths.some((path) => path.steps.some((step) => step.event.type === 'STOP_DECIDED' && step.event.stop === undefined))).toBe(true);
  });

  it('reaches DONE with every inner stop reason', () => {
    const reasons = new Set(finals.map((path) => path.state.output.result.stop.reason));
    expect([...reasons].sort()).toEqual([...INNER_REASONS].sort());
  });

  it('reaches DONE from every reachable state', () => {
    expect(paths.length).toBeGreaterThan(10);
  });

  it('records the wrap-up answer after a count bound when wrapUpOnBound is on', () => {
    const wrapped = finals.filter((path) => path.state.output.result.wrapUp !== undefined);
    const reasons = new Set(wrapped.map((path) => path.state.output.result.stop.reason));
    expect([...reasons].sort()).toEqual(['loop_detected', 'max_tool_calls', 'max_turns']);
  });
});

const OUTER_DONE_REASONS = ['goal_achieved', 'max_workflow_steps', 'max_session_runtime', 'max_replans', 'budget_exhausted', 'policy_denied', 'awaiting_approval', 'context_canceled', 'error', 'max_turns'] as const;

function workflowEvents(snapshot: AnyMachineSnapshot): AnyEventObject[] {
  if (snapshot.status === 'done') return [];
  const anywhere = [{ type: 'ABORT', stop: stop('context_canceled') }, { type: 'xstate.after.sessionDeadline.workflow' }];
  const value = snapshot.value as string | { TASK_SELECT: string };
  const active = { task: { id: 'task-1', index: 0, description: 'do it', bounds: { maxTurns: 3, maxToolCalls: 3, maxRuntimeMs: 1000 } }, point: taskOutput('planner_stopped').resumePoint };
  if (typeof value === 'object' && value.TASK_SELECT === 'PICK') {
    return [
      ...anywhere,
      { type: 'xstate.done.actor.taskSource', output: { kind: 'task', active } },
      { type: 'xstate.done.actor.taskSource', output: { kind: 'stop', stop: stop('goal_achieved') } },
      { type: 'xstate.done.actor.taskSource', output: { kind: 'stop', stop: stop('max_replans') } },
      { type: 'xstate.error.actor.taskSource', error: new Error('planner down') },
    ];
  }
  if (typeof value === 'object' && value.TASK_SELECT === 'GATE') {
    return [
      ...anywhere,
      { type: 'xstate.done.actor.policyGate', output: { decision: 'allow', at: 1 } },
      { type: 'xstate.done.actor.policyGate', output: { decision: 'deny', stop: stop('policy_denied'), at: 1 } },
      { type: 'xstate.done.actor.policyGate', output: { decision: 'require_approval', stop: stop('awaiting_approval'), at: 1 } },
      { type: 'xstate.error.actor.policyGate', error: new Error('gate down') },
    ];
  }
  switch (value) {
    case 'TASK_EXECUTE':
      return [
        ...anywhere,
        ...(['planner_stopped', 'max_turns', 'context_canceled'] as const).map((reason) => ({ type: 'xstate.done.actor.task', output: taskOutput(reason) })),
        { type: 'xstate.error.actor.task', error: new Error('crashed') },
      ];
    case 'CHECKPOINT':
      return [...anywhere, { type: 'xstate.done.actor.checkpointer', output: { at: 1 } }, { type: 'xstate.error.actor.checkpointer', error: new Error('disk full') }];
    case 'NEXT_TASK':
      return [
        ...anywhere,
        { type: 'xstate.done.actor.outerStopEvaluator', output: { at: 1 } },
        ...(['goal_achieved', 'max_workflow_steps', 'budget_exhausted', 'max_turns'] as const).map((reason) => ({
          type: 'xstate.done.actor.outerStopEvaluator',
          output: { stop: stop(reason), at: 1 },
        })),
      ];
    default:
      return anywhere;
  }
}

const workflowInput = {
  runId: 'run',
  bounds: { maxWorkflowSteps: 5, maxSessionRuntimeMs: 10_000, maxReplans: 3 },
  settings: { onTaskStop: 'halt', turn: { wrapUpOnBound: false, steeringMode: 'one-at-a-time', followUpMode: 'one-at-a-time' } },
  progress: { results: [], metrics: { workflowSteps: 0, turns: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, runtimeMs: 0 }, queues: { steering: [], followUp: [] }, modelCallIndex: 0, elapsedMs: 0 },
  startedAt: 0,
};

describe('the workflow machine (model-based)', () => {
  const paths = assertNoTraps(workflowMachine, workflowInput, workflowEvents);
  const finals = paths.filter((path) => path.state.status === 'done');

  it('visits INIT → TASK_SELECT → TASK_EXECUTE → CHECKPOINT → NEXT_TASK → DONE', () => {
    const visited = new Set(paths.map((path) => JSON.stringify(path.state.value)));
    for (const state of ['"TASK_EXECUTE"', '"CHECKPOINT"', '"NEXT_TASK"', '"DONE"', '{"TASK_SELECT":"PICK"}', '{"TASK_SELECT":"GATE"}']) expect(visited).toContain(state);
  });

  it('reaches DONE with every outer stop reason', () => {
    const reasons = new Set(finals.map((path) => path.state.output.stop.reason));
    expect([...reasons].sort()).toEqual([...OUTER_DONE_REASONS].sort());
  });

  it('ends a cancel that arrives while a task runs only after the task reports back', () => {
    const cancelled = finals.find((path) => {
      const types = path.steps.map((step) => step.event.type);
      return types.includes('ABORT') && types.includes('xstate.done.actor.task') && types.indexOf('ABORT') < types.indexOf('xstate.done.actor.task');
    });
    expect(cancelled).toBeDefined();
    expect(cancelled!.state.output.stop.reason).toBe('context_canceled');
  });
});
