import { fromCallback } from 'xstate';
import type { TurnServiceInput } from '../../../machines/turn.machine.js';
import type { ToolRunRequest, TurnEvent } from '../../contracts/turn-protocol.js';
import { describeError } from '../../errors.js';
import { runToolBatch, type BatchOutcome } from '../../tools/run-tool-batch.js';
import type { ToolCallScope } from '../../tools/run-tool-call.js';
import { TASK_STOPPED } from '../abort-reasons.js';
import type { KernelDeps } from '../kernel-deps.js';
import { runtimeOf, type RunRegistry, type RunRuntime } from '../run-runtime.js';
import { isAgentTool } from '../../contracts/delegation.js';
import { guardrailsOfTask } from '../../guardrails/guardrail-events.js';

/**
 * The turn's calls with the run's tools. The sources are open already after a model call; a resume
 * that starts in ACT opens them here, and one that does not open fails the batch (scope `tool`).
 */
async function runTurnTools(request: ToolRunRequest, run: RunRuntime, base: Omit<ToolCallScope, 'signal' | 'tools'>, signal: AbortSignal): Promise<BatchOutcome> {
  const runTools = run.tools;
  let catalog = runTools.ready;
  if (catalog === undefined) {
    try {
      catalog = await runTools.open();
    } catch (error) {
      return { ok: false, failure: { scope: 'tool', message: `tool_failed: ${describeError(error)}` }, results: [] };
    }
  }
  const { tools } = base.deps;
  const delegates = request.calls.some((call) => isAgentTool(catalog.byName.get(call.name)));
  if (delegates && request.task.resumeAt !== undefined) {
    // Before a child run starts, the turn is saved as it stands (at ACT, with the model's answer):
    // after a crash the resume runs the same calls again and continues the child, instead of asking
    // the model again and starting another child (docs/delegation.md).
    try {
      await saveTurnAtAct(run, base.taskId, request);
    } catch (error) {
      return { ok: false, failure: { scope: 'checkpoint', message: `saving the turn before a delegated run failed: ${describeError(error)}` }, results: [] };
    }
  }
  return runToolBatch(request.calls, request.slots, tools.execution, tools.concurrency, { ...base, tools: catalog.byName }, signal);
}

async function saveTurnAtAct(run: RunRuntime, taskId: string, request: ToolRunRequest): Promise<void> {
  const point = request.task.resumeAt!;
  const sequence = await run.checkpoints.turn({ runId: run.runId, task: request.task.spec, point });
  run.emit({ type: 'checkpoint_saved', kind: 'turn', taskId, taskIndex: request.task.spec.index, sequence });
}

type Reply = Extract<TurnEvent, { type: 'TOOLS_DONE' | 'TOOLS_FAILED' | 'TOOL_STARTED' }>;

/**
 * The tool runner: one long-lived actor per task. Each `tools.run` request runs one turn's
 * tool calls (src/tools/run-tool-batch.ts) and answers `TOOLS_DONE`, or `TOOLS_FAILED` when a
 * hook or policy gate threw or the store refused the result; the calls that started before it
 * answers go to the run's ToolStartLedger, which tells the task (`TOOL_STARTED`) only before a
 * cut. Stopping the actor aborts the calls in flight.
 */
export function createToolRunner(deps: KernelDeps, registry: RunRegistry) {
  return fromCallback<ToolRunRequest, TurnServiceInput>(({ input, receive, sendBack }) => {
    const run = runtimeOf(registry, input.runId);
    // One controller for the task's batches (one batch at a time): it aborts only when the task stops.
    let controller: AbortController | undefined;
    // Started calls are told to the task only before a cut (ADR/0393), in one event.
    const reportStarts = (count: number) => sendBack({ type: 'TOOL_STARTED', count });
    run.toolStarts.attach(input.taskId, reportStarts);
    const guardrails = guardrailsOfTask(deps.guardrails.list, input.guardrails);
    receive((request) => {
      controller ??= new AbortController();
      const current = controller;
      const onStart = () => {
        if (!current.signal.aborted) run.toolStarts.started(input.taskId);
      };
      // The run's spend so far, every running task's included (a list's: the request's own count).
      const base = { deps, run, taskId: input.taskId, taskIndex: input.taskIndex, turn: request.turn, spent: run.spend.total(), task: request.task, onStart, guardrails };
      void runTurnTools(request, run, base, current.signal).then((outcome) => {
        run.toolStarts.settled(input.taskId);
        if (current.signal.aborted) return;
        const at = deps.clock.now();
        if (outcome.ok) {
          sendBack({ type: 'TOOLS_DONE', results: outcome.results, at });
          return;
        }
        run.emit({ type: 'error', scope: outcome.failure.scope, message: outcome.failure.message, taskId: input.taskId, taskIndex: input.taskIndex });
        sendBack({ type: 'TOOLS_FAILED', failure: outcome.failure, results: outcome.results, at });
      });
    });
    return () => {
      run.toolStarts.detach(input.taskId, reportStarts);
      controller?.abort(TASK_STOPPED);
    };
  });
}
