import type { Bounds, InnerBounds } from '../../contracts/bounds.js';
import type { RunInfo } from '../protocol.js';
import { runTotals, type RunProgress } from './run-progress.js';

export type GaugeId = 'turns' | 'toolCalls' | 'taskTokens' | 'taskCost' | 'taskRuntime' | 'steps' | 'runTokens' | 'runCost' | 'sessionRuntime';

/** One bound and how much of it is spent. `limit` is undefined when the bound is not set (or not known). */
export interface Gauge {
  readonly id: GaugeId;
  readonly scope: 'task' | 'run';
  readonly label: string;
  /** The bound's name in the options (`maxTurns`, `outer.maxTokens`…). */
  readonly bound: string;
  readonly value: number;
  readonly limit: number | undefined;
  readonly unit: 'count' | 'tokens' | 'usd' | 'ms';
}

/**
 * A gauge for every bound (DESIGN.md section 1): the task's turns, tool calls, tokens, cost and
 * runtime against its inner bounds; the run's steps, tokens, cost and runtime against the outer
 * ones. `now` is the kernel clock's time to measure running durations against.
 */
export function gaugesFor(progress: RunProgress, info: RunInfo | undefined, now: number): readonly Gauge[] {
  const task = progress.task;
  const inner = innerBoundsFor(info, task?.taskId);
  const outer: Partial<Bounds['outer']> = info?.bounds?.outer ?? {};
  const totals = runTotals(progress);
  const taskRuntime = task === undefined ? 0 : (task.runtimeMs ?? Math.max(0, now - task.startedAt));
  const running = progress.segmentStartedAt === undefined ? 0 : Math.max(0, now - progress.segmentStartedAt);
  return [
    { id: 'turns', scope: 'task', label: 'turns', bound: 'maxTurns', value: task?.turn ?? 0, limit: inner?.maxTurns, unit: 'count' },
    { id: 'toolCalls', scope: 'task', label: 'tool calls', bound: 'maxToolCalls', value: task?.toolCalls ?? 0, limit: inner?.maxToolCalls, unit: 'count' },
    { id: 'taskTokens', scope: 'task', label: 'tokens', bound: 'maxTokens', value: task?.tokens ?? 0, limit: inner?.maxTokens, unit: 'tokens' },
    { id: 'taskCost', scope: 'task', label: 'cost', bound: 'maxCostUsd', value: task?.costUsd ?? 0, limit: inner?.maxCostUsd, unit: 'usd' },
    { id: 'taskRuntime', scope: 'task', label: 'runtime', bound: 'maxRuntimeMs', value: taskRuntime, limit: inner?.maxRuntimeMs, unit: 'ms' },
    { id: 'steps', scope: 'run', label: 'workflow steps', bound: 'maxWorkflowSteps', value: progress.steps, limit: outer.maxWorkflowSteps, unit: 'count' },
    { id: 'runTokens', scope: 'run', label: 'tokens', bound: 'outer.maxTokens', value: totals.tokens, limit: outer.maxTokens, unit: 'tokens' },
    { id: 'runCost', scope: 'run', label: 'cost', bound: 'outer.maxCostUsd', value: totals.costUsd, limit: outer.maxCostUsd, unit: 'usd' },
    { id: 'sessionRuntime', scope: 'run', label: 'session runtime', bound: 'maxSessionRuntimeMs', value: progress.elapsedBeforeMs + running, limit: outer.maxSessionRuntimeMs, unit: 'ms' },
  ];
}

/** The task's own bounds as the run recorded them; else the run's inner bounds (plan steps are made as the run goes). */
function innerBoundsFor(info: RunInfo | undefined, taskId: string | undefined): Partial<InnerBounds> | undefined {
  const spec = info?.tasks.find((task) => task.id === taskId) ?? (taskId === undefined ? info?.tasks[0] : undefined);
  return spec?.bounds ?? info?.bounds?.inner;
}

/** The gauge's fill, 0..1; undefined without a limit. */
export function gaugeRatio(gauge: Gauge): number | undefined {
  return gauge.limit === undefined ? undefined : Math.min(1, gauge.value / gauge.limit);
}

/** `3 / 25`, `1,204 tokens`, `$0.0123 / $1.00`, `2.4 s / 10 min`. */
export function formatGaugeValue(gauge: Pick<Gauge, 'unit'>, value: number): string {
  switch (gauge.unit) {
    case 'count':
      return String(value);
    case 'tokens':
      return value.toLocaleString('en-US');
    case 'usd':
      return value === 0 ? '$0' : value < 0.01 ? `$${value.toFixed(4)}` : `$${value.toFixed(2)}`;
    case 'ms':
      return formatDuration(value);
  }
}

export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1_000)} s`;
  return `${Math.floor(ms / 3_600_000)} h ${Math.round((ms % 3_600_000) / 60_000)} min`;
}
