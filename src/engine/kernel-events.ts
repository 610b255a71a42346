import { outputText } from '../contracts/output-text.js';
import type { KernelEvent } from '../contracts/events.js';
import type { Message } from '../contracts/messages.js';
import type { TaskResult, TurnResult, WorkflowResult } from '../contracts/results.js';
import { WRAP_UP_PROMPT } from '../loop/turn-reducers.js';
import { toContent } from '../tools/tool-results.js';
import type { RunEvent } from './engine-shell.js';
import type { EngineOutput } from './types.js';

/**
 * Kernel events → engine events. Kernel turns are 1-based, engine turn indexes 0-based. The
 * wrap-up call (not a turn) streams with the index the next turn would have had and `wrapUp: true`.
 * Every other kernel event (task, checkpoint, policy, error, …) has no engine counterpart; how the
 * run ended is in `done`.
 */
export async function* engineEvents(events: AsyncIterable<KernelEvent>): AsyncGenerator<RunEvent> {
  let wrapUp = false;
  for await (const event of events) {
    switch (event.type) {
      case 'message_start':
        wrapUp = event.wrapUp;
        break;
      case 'message_update':
        if (event.delta === '') break;
        yield wrapUp ? { type: 'text_delta', turnIndex: event.turn, delta: event.delta, wrapUp: true } : { type: 'text_delta', turnIndex: event.turn - 1, delta: event.delta };
        break;
      case 'tool_execution_start':
        yield { type: 'tool_call_start', turnIndex: event.turn - 1, toolCallId: event.toolCallId, name: event.name, args: event.args };
        break;
      case 'tool_execution_end':
        yield { type: 'tool_call_end', turnIndex: event.turn - 1, toolCallId: event.toolCallId, name: event.name, result: event.result, isError: event.isError };
        break;
      case 'turn_end':
        yield { type: 'turn_end', turnIndex: event.turn - 1, text: event.result.assistantText, toolCalls: event.result.toolCalls.length };
        break;
      default:
        break;
    }
  }
}

/** `done.output` of a one-task run: the task's stop (the workflow's when the task never ran). */
export function engineOutput(result: WorkflowResult): EngineOutput {
  const task = result.tasks[0];
  const stop = task?.stop ?? result.stop;
  const { metrics } = result;
  return {
    text: outputText(task?.output),
    stopReason: stop.reason,
    stopDetail: stop.detail,
    ...(stop.reason === 'error' ? { stopCode: stop.code } : {}),
    usage: { inputTokens: metrics.inputTokens, outputTokens: metrics.outputTokens },
    metrics: { turns: metrics.turns, toolCalls: metrics.toolCalls, costUsd: metrics.costUsd, durationMs: metrics.runtimeMs },
  };
}

/**
 * The conversation after a run, rebuilt from its task result: the starting transcript, then each
 * turn's assistant message and tool results (what the model was shown), then the wrap-up exchange.
 * A turn that produced nothing (its model call failed or was cut) adds nothing.
 */
export function conversationAfter(transcript: readonly Message[], task: TaskResult | undefined): readonly Message[] {
  if (task === undefined) return transcript;
  const messages: Message[] = [...transcript];
  for (const turn of task.turns) appendTurn(messages, turn);
  if (task.wrapUp !== undefined && task.wrapUp.assistantText !== '') {
    messages.push({ role: 'user', content: WRAP_UP_PROMPT, source: 'wrap_up' }, { role: 'assistant', content: task.wrapUp.assistantText });
  }
  return messages;
}

function appendTurn(messages: Message[], turn: TurnResult): void {
  if (turn.toolCalls.length === 0) {
    const producedNothing = turn.assistantText === '' && turn.stop !== undefined && turn.stop.reason !== 'planner_stopped';
    if (!producedNothing) messages.push({ role: 'assistant', content: turn.assistantText });
    return;
  }
  messages.push({
    role: 'assistant',
    content: turn.assistantText,
    toolCalls: turn.toolCalls.map((call) => ({ id: call.id, name: call.name, args: call.args })),
  });
  for (const call of turn.toolCalls) {
    const content = call.isError ? `Error: ${toContent(call.result)}` : toContent(call.result);
    messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content, isError: call.isError });
  }
}
