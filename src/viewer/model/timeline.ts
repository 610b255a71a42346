import type { KernelEvent } from '../../contracts/events.js';
import { formatForkPoint, type ForkPoint } from '../../contracts/fork.js';
import type { ChildRunLink } from '../protocol.js';

/** One line of the event timeline. `details` are shown on demand (tool arguments and results, answers). */
export interface TimelineRow {
  /** Position of the event in the run's event list (the scrubber's unit). */
  readonly position: number;
  readonly seq: number;
  readonly at: number;
  readonly type: KernelEvent['type'];
  readonly taskId: string | undefined;
  readonly turn: number | undefined;
  readonly summary: string;
  readonly tone: 'plain' | 'tool' | 'stop' | 'error';
  readonly details: readonly { readonly label: string; readonly value: unknown }[];
  /** On a turn's start: the point before it, where "fork from here" starts a new run. */
  readonly forkPoint?: ForkPoint;
  /** On a tool call's start and end: the child run it delegated to (`agentTool`), when it did. */
  readonly childRunId?: string;
}

/** Streaming deltas would bury everything else; their text is in `message_end`. */
const HIDDEN = new Set<KernelEvent['type']>(['message_update', 'tool_execution_update']);

/**
 * The timeline of `events`: every event but streaming deltas, tool ends paired with their start's
 * arguments, a delegating tool call's rows with the child run it started (`children`).
 */
export function timelineRows(events: readonly KernelEvent[], children: readonly ChildRunLink[] = []): readonly TimelineRow[] {
  const argsByCall = new Map<string, unknown>();
  const childOf = new Map(children.map((child) => [callKey(child), child.runId]));
  const rows: TimelineRow[] = [];
  events.forEach((event, position) => {
    if (event.type === 'tool_execution_start') argsByCall.set(event.toolCallId, event.args);
    if (HIDDEN.has(event.type)) return;
    const { summary, tone, details } = describeEvent(event, argsByCall);
    const childRunId = event.type === 'tool_execution_start' || event.type === 'tool_execution_end' ? childOf.get(callKey(event)) : undefined;
    rows.push({
      position,
      seq: event.seq,
      at: event.at,
      type: event.type,
      taskId: 'taskId' in event ? event.taskId : undefined,
      turn: 'turn' in event && typeof event.turn === 'number' ? event.turn : undefined,
      summary,
      tone,
      details,
      ...(event.type === 'turn_start' ? { forkPoint: { task: event.taskIndex + 1, turn: event.turn } } : {}),
      ...(childRunId === undefined ? {} : { childRunId }),
    });
  });
  return rows;
}

/** A tool call within its run: the model may reuse a call id in another turn (ADR/0304). */
function callKey(call: { readonly taskId: string; readonly turn: number; readonly toolCallId: string }): string {
  return `${call.taskId}\u0000${call.turn}\u0000${call.toolCallId}`;
}

type Description = Pick<TimelineRow, 'summary' | 'tone' | 'details'>;

function describeEvent(event: KernelEvent, argsByCall: ReadonlyMap<string, unknown>): Description {
  const plain = (summary: string, details: Description['details'] = []): Description => ({ summary, tone: 'plain', details });
  switch (event.type) {
    case 'workflow_start':
      return plain(
        `${event.forkOf !== undefined ? `forked from ${event.forkOf.runId} at ${formatForkPoint(event.forkOf.at)}` : event.resumed ? 'resumed' : 'started'}: ${event.tasks.length} task${event.tasks.length === 1 ? '' : 's'}`,
        [{ label: 'tasks', value: event.tasks }],
      );
    case 'workflow_end':
      return { summary: `workflow ${event.stop.reason}: ${event.stop.detail}`, tone: 'stop', details: [{ label: 'metrics', value: event.metrics }] };
    case 'task_start':
      return plain(`task ${event.taskIndex + 1} ${event.taskId}: ${event.description}`);
    case 'task_end':
      return { summary: `task ${event.taskId} ${event.stop.reason}: ${event.stop.detail}`, tone: 'stop', details: [{ label: 'counters', value: event.counters }] };
    case 'turn_start':
      return plain(`turn ${event.turn}`);
    case 'turn_end':
      return event.result.stop === undefined
        ? plain(`turn ${event.turn} ended`)
        : { summary: `turn ${event.turn} ended: ${event.result.stop.reason}`, tone: 'stop', details: [{ label: 'stop', value: event.result.stop }] };
    case 'compaction_start':
      return plain(`compacting the transcript (${plural(event.messagesBefore, 'message')})`);
    case 'compaction_end':
      if (event.outcome === 'compacted') return plain(`compacted ${event.messagesBefore} → ${plural(event.messagesAfter, 'message')}`);
      return { summary: `compaction ${event.outcome}`, tone: event.outcome === 'failed' ? 'error' : 'stop', details: [] };
    case 'output_invalid': {
      const what = event.wrapUp ? 'wrap-up answer' : 'answer';
      const outcome = event.outcome === 'repair' ? `sent back (repair ${event.repairs})` : 'the task stopped';
      return { summary: `${what} did not match the output schema: ${outcome}`, tone: event.outcome === 'repair' ? 'plain' : 'stop', details: [{ label: 'issues', value: event.issues }] };
    }
    case 'guardrail_tripped': {
      const outcome = event.mode === 'revise' ? 'the model is told' : 'the task stops';
      return { summary: `guardrail ${event.name} (${event.on}) tripped, ${outcome}: ${event.reason}`, tone: event.mode === 'revise' ? 'plain' : 'stop', details: [] };
    }
    case 'rate_limit_wait':
      return plain(`waiting ${Math.round(event.waitMs)} ms for ${event.model}'s rate limit (${event.reason.replace('_', '-')})`);
    case 'message_start':
      return plain(event.wrapUp ? 'wrap-up model call' : 'model call');
    case 'message_end': {
      const asks = event.toolCalls.length === 0 ? '' : ` → ${event.toolCalls.map((call) => call.name).join(', ')}`;
      const tokens = event.usage.inputTokens + event.usage.outputTokens;
      const details = [...(event.text === '' ? [] : [{ label: 'text', value: event.text }]), ...(event.toolCalls.length === 0 ? [] : [{ label: 'tool calls', value: event.toolCalls }])];
      return { summary: `model ${event.finishReason}${asks} (${tokens} tokens)`, tone: event.finishReason === 'error' ? 'error' : 'plain', details };
    }
    case 'tool_execution_start':
      return { summary: `${event.name} started`, tone: 'tool', details: [{ label: 'arguments', value: event.args }] };
    case 'tool_execution_end': {
      const how = event.replayed ? ' (replayed)' : event.executed ? '' : ' (not run)';
      return {
        summary: `${event.name} ${event.isError ? 'failed' : 'done'}${how} in ${Math.round(event.durationMs)} ms`,
        tone: event.isError ? 'error' : 'tool',
        details: [
          // An approver's edit: the model's arguments and the ones the tool ran with, apart.
          ...(event.executedArgs === undefined
            ? [{ label: 'arguments', value: argsByCall.get(event.toolCallId) }]
            : [
                { label: 'proposed arguments', value: argsByCall.get(event.toolCallId) },
                { label: 'executed arguments (edited by the approver)', value: event.executedArgs },
              ]),
          { label: 'result', value: event.result },
        ],
      };
    }
    case 'checkpoint_saved':
      return plain(`checkpoint after ${event.kind === 'task' ? `task ${event.taskId}` : `turn ${event.turn ?? '?'}`}`);
    case 'policy_decision': {
      const subject = event.subject === 'tool' ? `tool ${event.toolName ?? '?'}` : `task ${event.taskId}`;
      const details = event.answer === undefined ? [] : [{ label: 'approver\'s answer', value: event.answer }];
      return { summary: `policy ${event.decision} ${subject}: ${event.reason}`, tone: event.decision === 'allow' ? 'plain' : 'stop', details };
    }
    case 'message_queued':
      return plain(`${event.queue} message queued`, [{ label: 'message', value: event.content }]);
    case 'queue_cleared':
      return plain(`${event.queue} queue cleared`);
    case 'plan_created':
    case 'plan_revised':
      return plain(`plan ${event.type === 'plan_created' ? 'created' : 'revised'} (${event.strategy} v${event.version}): ${event.steps.length} steps`, [{ label: 'steps', value: event.steps }]);
    case 'strategy_selected':
      return plain(`strategy ${event.strategy} (${event.by}): ${event.reason}`);
    case 'error':
      return { summary: `${event.scope} error: ${event.message}`, tone: 'error', details: [] };
    case 'warning':
      return plain(`warning: ${event.message}`);
    case 'workflow_changed':
      return { summary: `workflow changed, accepted by ${event.acceptedBy}: ${event.changes.join('; ')}`, tone: 'stop', details: [{ label: 'changes', value: event.changes }] };
    case 'message_update':
    case 'tool_execution_update':
      return plain(event.type);
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
