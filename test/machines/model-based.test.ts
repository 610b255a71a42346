/**
 * Model-based tests: walk the pure machine definitions with xstate's graph utilities, feeding the
 * answers their services could give (turn-environment.ts, workflow-environment.ts: the stop
 * evaluators there are the kernel's own conditions). Every reachable state is then driven to its
 * end by the most stubborn environment (a model that always asks for the same tool, tasks that
 * always finish), and EVERY such path must end in a final state, with a stop reason from the
 * StopReason enum, without exceeding a bound on the way.
 */
import { describe, expect, it } from 'vitest';
import { getInitialMicrosteps, getMicrosteps, type AnyEventObject, type AnyMachineSnapshot, type AnyStateMachine } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { StopReason } from 'dualloop';
import { totalTokens } from '../../src/contracts/usage.js';
import type { TurnContext, TurnOutput } from '../../src/contracts/turn-protocol.js';
import type { WorkflowContext, WorkflowOutput } from '../../src/contracts/workflow-protocol.js';
import { turnMachine } from '../../machines/turn.machine.js';
import { workflowMachine } from '../../machines/workflow.machine.js';
import { TURN_BOUNDS } from './turn-fixtures.js';
import { greedyTurnEvent, serializeTurn, turnEvents, turnInput } from './turn-environment.js';
import { greedyWorkflowEvent, OUTER_BOUNDS, serializeWorkflow, stateOf, workflowEvents, workflowInput } from './workflow-environment.js';

const OUTER_ONLY = ['max_workflow_steps', 'max_session_runtime', 'max_replans'];
/** A task whose dependency failed ends `dependency_failed` without a turn machine: the workflow ends it. */
const NOT_RUN = ['dependency_failed'];
const INNER_REASONS = StopReason.options.filter((reason) => !OUTER_ONLY.includes(reason) && !NOT_RUN.includes(reason));
/** Longer than any path the bounds allow: a path that needs more never ends. */
const STEP_LIMIT = 60;

/** A path from the start to the end, with every snapshot it passes through (transient states included). */
interface FullPath {
  readonly events: readonly AnyEventObject[];
  readonly snapshots: readonly AnyMachineSnapshot[];
  readonly end: AnyMachineSnapshot;
}

function walk(logic: AnyStateMachine, input: unknown, events: (snapshot: AnyMachineSnapshot) => AnyEventObject[], serialize: (snapshot: AnyMachineSnapshot) => string) {
  return getShortestPaths(logic as never, { input: input as never, events: events as never, serializeState: serialize as never, limit: 50_000 }) as unknown as {
    state: AnyMachineSnapshot;
    steps: { event: AnyEventObject }[];
  }[];
}

/** Replays a walked path from the start, then lets the greedy environment finish it. */
function complete(logic: AnyStateMachine, input: unknown, prefix: readonly AnyEventObject[], greedy: (snapshot: AnyMachineSnapshot) => AnyEventObject): FullPath {
  const events = prefix.filter((event) => event.type !== 'xstate.init');
  const snapshots: AnyMachineSnapshot[] = getInitialMicrosteps(logic, input as never).map(([snapshot]) => snapshot);
  const step = (event: AnyEventObject) => {
    const microsteps = getMicrosteps(logic, snapshots[snapshots.length - 1]! as never, event as never);
    snapshots.push(...microsteps.map(([snapshot]) => snapshot));
  };
  for (const event of events) step(event);
  const all = [...events];
  while (snapshots[snapshots.length - 1]!.status !== 'done' && all.length < STEP_LIMIT) {
    const event = greedy(snapshots[snapshots.length - 1]!);
    all.push(event);
    step(event);
  }
  return { events: all, snapshots, end: snapshots[snapshots.length - 1]! };
}

function describePath(path: FullPath): string {
  return path.events.map((event) => (event.type === 'STOP_DECIDED' ? `STOP_DECIDED(${(event as { stop?: { reason: string } }).stop?.reason ?? '-'})` : event.type)).join(' → ');
}

// Compaction runs on the second turn, so the walk also covers COMPACT.
const turnLogic = turnMachine.provide({ guards: { needsCompaction: (_, check) => check.turn === 2 } });

describe('the turn machine (model-based)', () => {
  const walked = walk(turnLogic, turnInput(), turnEvents, serializeTurn);
  const paths = walked.map((path) => complete(turnLogic, turnInput(), path.steps.map((step) => step.event), greedyTurnEvent));
  const outputs = paths.map((path) => path.end.output as TurnOutput | undefined);

  it('walks enough of the machine to mean something', () => {
    expect(walked.length).toBeGreaterThan(500);
  });

  it('ends EVERY path in a final state with a stop reason from the StopReason enum', () => {
    for (const [index, path] of paths.entries()) {
      expect(path.end.status, `not done: ${describePath(path)}`).toBe('done');
      expect(INNER_REASONS, describePath(path)).toContain(outputs[index]!.result.stop.reason);
    }
  });

  it('exceeds no bound on any path: turns, tool calls, no model call once the token budget is spent', () => {
    for (const path of paths) {
      for (const snapshot of path.snapshots) {
        const context = snapshot.context as TurnContext;
        expect(context.turn, describePath(path)).toBeLessThanOrEqual(TURN_BOUNDS.maxTurns);
        expect(context.toolCalls, describePath(path)).toBeLessThanOrEqual(TURN_BOUNDS.maxToolCalls);
        if (snapshot.value === 'PLAN' || snapshot.value === 'WRAP_UP') expect(totalTokens(context.usage), describePath(path)).toBeLessThan(TURN_BOUNDS.maxTokens);
      }
      const { result } = path.end.output as TurnOutput;
      expect(result.turnCount).toBeLessThanOrEqual(TURN_BOUNDS.maxTurns);
      expect(result.toolCalls).toBeLessThanOrEqual(TURN_BOUNDS.maxToolCalls);
      // A bound stop names the bound, and the bound was really reached.
      if (result.stop.bound !== undefined) expect(result.stop.bound.value, describePath(path)).toBeGreaterThanOrEqual(result.stop.bound.limit);
    }
  });

  it('lets the bounds alone stop a model that never stops asking for tools', () => {
    const greedy = complete(turnLogic, turnInput(), [], greedyTurnEvent);
    expect((greedy.end.output as TurnOutput).result.stop.reason).toBe('loop_detected');
    const reasons = new Set(paths.filter((path) => path.events.every((event) => event.type !== 'CANCEL')).map((path) => (path.end.output as TurnOutput).result.stop.reason));
    expect([...reasons]).toEqual(expect.arrayContaining(['max_turns', 'max_tool_calls', 'budget_exhausted', 'loop_detected']));
  });

  it('passes through every state of the inner loop, OBSERVE, COMPACT and WRAP_UP included', () => {
    const passed = new Set(paths.flatMap((path) => path.snapshots.map((snapshot) => snapshot.value as string)));
    expect([...passed].sort()).toEqual(['ACT', 'CHECK_STOP', 'COMPACT', 'DONE', 'NEXT_TURN', 'OBSERVE', 'PLAN', 'TURN_INIT', 'WRAP_UP'].sort());
  });

  it('reaches DONE with every inner stop reason', () => {
    const reasons = new Set(outputs.map((output) => output!.result.stop.reason));
    expect([...reasons].sort()).toEqual([...INNER_REASONS].sort());
  });

  it('records the wrap-up answer only after a count bound, when wrapUpOnBound is on', () => {
    const wrapped = outputs.filter((output) => output!.result.wrapUp !== undefined);
    const countBounds = ['loop_detected', 'max_tool_calls', 'max_turns'];
    // The last turn's stop is the bound the wrap-up followed; the task keeps it unless a stop cut the call.
    const bounds = new Set(wrapped.map((output) => output!.result.turns.at(-1)?.stop?.reason));
    expect([...bounds].sort()).toEqual(countBounds);
    const answered = wrapped.filter((output) => output!.result.wrapUp!.finishReason !== 'canceled');
    expect([...new Set(answered.map((output) => output!.result.stop.reason))].sort()).toEqual(countBounds);
    for (const output of wrapped.filter((candidate) => candidate!.result.wrapUp!.finishReason === 'canceled')) {
      expect(['context_canceled', 'max_runtime', 'error']).toContain(output!.result.stop.reason);
      expect(output!.result.wrapUp!.assistantText).toBe('');
    }
    for (const output of wrapped) expect(output!.result.turnCount).toBeLessThanOrEqual(TURN_BOUNDS.maxTurns);
  });
});

const OUTER_DONE_REASONS = ['goal_achieved', 'max_workflow_steps', 'max_session_runtime', 'max_replans', 'budget_exhausted', 'policy_denied', 'awaiting_approval', 'context_canceled', 'error', 'max_turns'];

describe('the workflow machine (model-based)', () => {
  const walked = walk(workflowMachine, workflowInput, workflowEvents, serializeWorkflow);
  const paths = walked.map((path) => complete(workflowMachine, workflowInput, path.steps.map((step) => step.event), greedyWorkflowEvent));

  it('walks enough of the machine to mean something', () => {
    expect(walked.length).toBeGreaterThan(100);
  });

  it('ends EVERY path in a final state with a stop reason from the StopReason enum', () => {
    for (const path of paths) {
      expect(path.end.status, `not done: ${describePath(path)}`).toBe('done');
      expect(StopReason.options, describePath(path)).toContain((path.end.output as WorkflowOutput).stop.reason);
    }
  });

  it('exceeds no bound on any path: no task starts once the steps or the token budget are spent', () => {
    for (const path of paths) {
      for (const snapshot of path.snapshots) {
        const { metrics, branches } = snapshot.context as WorkflowContext;
        expect(metrics.workflowSteps, describePath(path)).toBeLessThanOrEqual(OUTER_BOUNDS.maxWorkflowSteps);
        if (branches.running.length > 0) {
          expect(metrics.workflowSteps, describePath(path)).toBeLessThan(OUTER_BOUNDS.maxWorkflowSteps);
          expect(metrics.inputTokens + metrics.outputTokens, describePath(path)).toBeLessThan(OUTER_BOUNDS.maxTokens);
        }
      }
      const { stop } = path.end.output as WorkflowOutput;
      if (stop.bound !== undefined) expect(stop.bound.value, describePath(path)).toBeGreaterThanOrEqual(stop.bound.limit);
    }
  });

  it('visits INIT → TASK_SELECT → TASK_EXECUTE → CHECKPOINT → NEXT_TASK → DONE', () => {
    const passed = new Set(paths.flatMap((path) => path.snapshots.map(stateOf)));
    expect([...passed].sort()).toEqual(['CHECKPOINT', 'DONE', 'INIT', 'NEXT_TASK', 'TASK_EXECUTE', 'TASK_SELECT.GATE', 'TASK_SELECT.NEXT_PICKED', 'TASK_SELECT.PICK'].sort());
  });

  it('reaches DONE with every outer stop reason', () => {
    const reasons = new Set(paths.map((path) => (path.end.output as WorkflowOutput).stop.reason));
    expect([...reasons].sort()).toEqual([...OUTER_DONE_REASONS].sort());
  });

  it('ends a cancel that arrives while a task runs only after the task reports back', () => {
    const cancelled = paths.find((path) => {
      const types = path.events.map((event) => event.type);
      return types.includes('ABORT') && types.includes('xstate.done.actor.task') && types.indexOf('ABORT') < types.indexOf('xstate.done.actor.task');
    });
    expect(cancelled).toBeDefined();
    expect((cancelled!.end.output as WorkflowOutput).stop.reason).toBe('context_canceled');
  });
});
