import type { JSX } from 'preact';
import type { AuditCompaction, AuditGraphTask, AuditPolicyDecision, AuditReport, AuditTask, AuditWrapUp } from '../../contracts/audit.js';
import { answerSummary, shortJson } from '../../policy/approval-answer.js';
import type { StopBound, StopCondition } from '../../contracts/stop.js';
import { formatDuration, formatGaugeValue } from '../model/gauges.js';

/**
 * The run's stop tree, the content of `dualloop audit`: workflow → tasks → turns (compactions, the
 * wrap-up call), then policy decisions and plans. A graph run's tasks come in task order with
 * their dependencies, fan-out items under their task.
 */
export function StopTree({ audit }: { readonly audit: AuditReport | undefined }) {
  if (audit === undefined) return <section class="stop-tree empty">The stop tree appears once the store has the run.</section>;
  const metrics = audit.workflow.metrics;
  return (
    <section class="stop-tree" data-status={audit.status}>
      <h2>
        stop tree <small>{audit.status}</small>
      </h2>
      <div class="workflow-stop" data-reason={audit.workflow.stop?.reason ?? ''}>
        workflow {stopText(audit.workflow.stop)}
        {boundText(audit.workflow.bound)}
      </div>
      <div class="metrics">
        {metrics.workflowSteps} steps · {metrics.turns} turns · {metrics.toolCalls} tool calls · {formatGaugeValue({ unit: 'tokens' }, metrics.inputTokens)} in +{' '}
        {formatGaugeValue({ unit: 'tokens' }, metrics.outputTokens)} out tokens · {formatGaugeValue({ unit: 'usd' }, metrics.costUsd)} · {formatDuration(metrics.runtimeMs)}
      </div>
      <ul class="tasks">{audit.graph === undefined ? audit.tasks.map((task) => taskItem(task)) : graphItems(audit, audit.graph.tasks)}</ul>
      {audit.active === undefined ? null : (
        <p class="active-task">
          task {audit.active.index + 1} <b>{audit.active.taskId}</b> was running at the last checkpoint (no stop yet)
        </p>
      )}
      {audit.policyDecisions.length === 0 ? null : (
        <>
          <h3>policy decisions</h3>
          <ul class="policy">
            {audit.policyDecisions.map((decision) => (
              <li key={decision.seq} data-decision={decision.decision}>
                <b>{decision.decision}</b> {decision.subject === 'tool' ? `tool ${decision.toolName ?? '?'} (${decision.taskId})` : `task ${decision.taskId}`}: {decision.reason}
                {decision.approvalId === undefined ? '' : ` [approval ${decision.approvalId}${answerText(decision.answer)}]`}
              </li>
            ))}
          </ul>
        </>
      )}
      {audit.plans.length === 0 ? null : (
        <>
          <h3>plans</h3>
          <ul class="plans">
            {audit.plans.map((plan) => (
              <li key={plan.at}>
                {plan.kind}: {plan.steps.join(' → ')}
                {plan.reason === undefined ? '' : ` (${plan.reason})`}
              </li>
            ))}
          </ul>
        </>
      )}
      <p class="event-count">{audit.events} events in the log</p>
    </section>
  );
}

/**
 * A graph run's tasks in task order, each with the tasks it waits for, and its stop, or that it
 * runs (as of the latest checkpoint) or has not started; a fan-out task's items under it.
 */
function graphItems(audit: AuditReport, graph: readonly AuditGraphTask[]) {
  const ended = new Map(audit.tasks.map((task) => [task.taskId, task]));
  const running = new Set((audit.running ?? []).map((task) => task.taskId));
  return graph.map((node) => {
    const after = node.dependsOn.length === 0 ? null : <span class="after"> ← after {node.dependsOn.join(', ')}</span>;
    const items = (node.items ?? []).map((id) => {
      const item = ended.get(id);
      return item === undefined ? (
        <li class="task" key={id} data-task-id={id} data-state="in_progress">
          item <b>{id}</b> <span class="reason none">running at the last checkpoint</span>
        </li>
      ) : (
        taskItem(item, 'item')
      );
    });
    const children = items.length === 0 ? null : <ul class="tasks items">{items}</ul>;
    const task = ended.get(node.taskId);
    if (task !== undefined) return taskItem(task, `task ${node.index + 1}`, after, children);
    const state = running.has(node.taskId) || items.length > 0 ? 'running at the last checkpoint (no stop yet)' : audit.status === 'incomplete' ? 'not started at the last checkpoint' : 'not started';
    return (
      <li class="task" key={node.taskId} data-task-id={node.taskId} data-state={node.state}>
        <div>
          task {node.index + 1} <b>{node.taskId}</b>
          {after} <span class="reason none">{state}</span>
        </div>
        <div class="description">“{node.description}”</div>
        {children}
      </li>
    );
  });
}

function taskItem(task: AuditTask, label = `task ${task.index + 1}`, after: JSX.Element | null = null, children: JSX.Element | null = null) {
  const counters = task.counters;
  return (
    <li class="task" key={task.taskId} data-task-id={task.taskId} data-reason={task.stop.reason}>
      <div>
        {label} <b>{task.taskId}</b>
        {after} {stopText(task.stop)}
        {boundText(task.bound)}
      </div>
      <div class="description">“{task.description}”</div>
      <div class="metrics">
        {counters.turns} turns · {counters.toolCalls} tool calls · {formatGaugeValue({ unit: 'tokens' }, counters.inputTokens + counters.outputTokens)} tokens ·{' '}
        {formatGaugeValue({ unit: 'usd' }, counters.costUsd)} · {formatDuration(counters.runtimeMs)}
      </div>
      <details>
        <summary>{task.turns.length} turns</summary>
        <ol class="turns">
          {task.turns.map((turn) => (
            <li key={turn.turn}>
              turn {turn.turn}
              {turn.compaction === undefined ? null : <> · {compactionText(turn.compaction)}</>}
              {turn.toolCalls.length === 0 ? '' : ` · ${turn.toolCalls.map((call) => `${call.name}${call.isError ? '✗' : ''}${call.proposedArgs === undefined ? '' : ` ${shortJson(call.proposedArgs, 80)} → edited ${shortJson(call.args, 80)}`}`).join(', ')}`}
              {turn.stop === undefined ? '' : ` · `}
              {turn.stop === undefined ? null : stopText(turn.stop)} · {formatDuration(turn.runtimeMs)}
            </li>
          ))}
        </ol>
        {task.wrapUp === undefined ? null : wrapUpText(task.wrapUp)}
      </details>
      {children}
    </li>
  );
}

function compactionText(compaction: AuditCompaction) {
  const text = compaction.outcome === 'compacted' ? `compacted ${compaction.messagesBefore} → ${compaction.messagesAfter} messages` : `compaction ${compaction.outcome}`;
  return (
    <span class="compaction" data-outcome={compaction.outcome}>
      {text}
    </span>
  );
}

/** The wrap-up call that followed the task's stop (`wrapUpOnBound`): not a turn. */
function wrapUpText(wrapUp: AuditWrapUp) {
  return (
    <div class="wrap-up" data-finish={wrapUp.finishReason ?? ''}>
      wrap-up after turn {wrapUp.afterTurn}
      {wrapUp.finishReason === undefined ? '' : ` · ${wrapUp.finishReason}`} · {wrapUp.textLength} chars ·{' '}
      {formatGaugeValue({ unit: 'tokens' }, wrapUp.usage.inputTokens + wrapUp.usage.outputTokens)} tokens · {formatGaugeValue({ unit: 'usd' }, wrapUp.costUsd)} ·{' '}
      {formatDuration(wrapUp.runtimeMs)}
    </div>
  );
}

function stopText(stop: StopCondition | undefined) {
  if (stop === undefined) return <span class="reason none">no stop yet (running, or interrupted without a result)</span>;
  return (
    <>
      <span class={`reason ${reasonClass(stop.reason)}`}>{stop.reason}</span> <span class="detail">— {stop.detail}</span>
    </>
  );
}

function boundText(bound: StopBound | undefined) {
  return bound === undefined ? null : <span class="bound"> [{`${bound.name} ${bound.value}/${bound.limit}`}]</span>;
}

/** Natural completions green, canceled grey, bounds amber, the rest (policy, errors) red. */
export function reasonClass(reason: StopCondition['reason']): string {
  if (reason === 'planner_stopped' || reason === 'goal_achieved' || reason === 'tool_terminated') return 'natural';
  if (reason === 'context_canceled') return 'canceled';
  if (reason === 'error' || reason === 'policy_denied' || reason === 'awaiting_approval') return 'refused';
  return 'bound';
}

/** `, args edited to {…}` / `, the model was told: "…"`: what an approver's answer changed. */
function answerText(answer: AuditPolicyDecision['answer']): string {
  const summary = answerSummary(answer);
  return summary === undefined ? '' : `, ${summary}`;
}
