/**
 * The composition root: the one place where the pure machines meet their effects.
 * Built once per kernel; per-run resources are looked up by `runId` in the registry.
 */
import { turnMachine } from '../../machines/turn.machine.js';
import { workflowMachine } from '../../machines/workflow.machine.js';
import type { TaskStrategy } from '../strategies/strategy.js';
import type { KernelDeps } from './kernel-deps.js';
import type { RunRegistry } from './run-runtime.js';
import { createInnerStopEvaluator } from './services/inner-stop-evaluator.js';
import { createModelCaller } from './services/model-caller.js';
import { createToolRunner } from './services/tool-runner.js';
import { createCompactorActor, createNeedsCompaction, createReport, createSaveTurnCheckpoint } from './services/turn-effects.js';
import { createCheckpointer, createOuterStopEvaluator, createTaskGate, createTaskSource } from './services/workflow-actors.js';

export function provideMachines(deps: KernelDeps, registry: RunRegistry, strategy: TaskStrategy) {
  const report = createReport(registry);
  const providedTurnMachine = turnMachine.provide({
    actors: {
      modelCaller: createModelCaller(deps, registry),
      toolRunner: createToolRunner(deps, registry),
      innerStopEvaluator: createInnerStopEvaluator(deps, registry),
      compactor: createCompactorActor(deps),
    },
    actions: {
      report,
      saveTurnCheckpoint: createSaveTurnCheckpoint(deps, registry),
    },
    guards: {
      needsCompaction: createNeedsCompaction(deps, registry),
    },
  });
  return workflowMachine.provide({
    actors: {
      taskSource: createTaskSource(deps, registry, strategy),
      policyGate: createTaskGate(deps, registry),
      taskLoop: providedTurnMachine,
      checkpointer: createCheckpointer(deps, registry),
      outerStopEvaluator: createOuterStopEvaluator(deps, registry, strategy),
    },
    actions: { report },
  });
}

export type ProvidedWorkflowMachine = ReturnType<typeof provideMachines>;
