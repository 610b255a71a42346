/**
 * `loopEngine`: the agent loop as a plain `while` loop, no state machine. It exists to prove that
 * the EngineAdapter contract does not leak machine concepts; test/engine/loop-engine-imports.test.ts
 * fails if anything in its module graph imports xstate or the kernel.
 *
 *   while (true) { call the model; no tool calls → stop; run the calls in order; all terminate → stop;
 *                  turn bound reached → stop }
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { DEFAULT_BOUNDS } from '../contracts/bounds.js';
import type { Message, ToolMessage } from '../contracts/messages.js';
import type { Model } from '../contracts/model.js';
import type { StopReason } from '../contracts/stop.js';
import type { Tool } from '../contracts/tool.js';
import { addUsage, ZERO_USAGE, type Usage } from '../contracts/usage.js';
import { ConfigError, describeError, FailureError, type ConfigIssue } from '../errors.js';
import { toolListIssues } from '../tools/define-tool.js';
import { createEngineShell, type EngineRun, type RunEvent } from './engine-shell.js';
import { EventChannel } from './event-channel.js';
import { runLoopToolCall } from './loop-tool-call.js';
import type { EngineAdapter, EngineOutput } from './types.js';

export interface LoopEngineOptions {
  readonly model: Model;
  readonly tools?: readonly Tool[];
  /** Default: `DEFAULT_BOUNDS.inner.maxTurns`. A model that answers on the last turn has completed. */
  readonly maxTurns?: number;
  /** Put in front of a conversation that has no system message. */
  readonly system?: string;
}

/** Builds the `loop` engine. Throws one ConfigError naming every bad option. */
export function loopEngine(options: LoopEngineOptions): EngineAdapter {
  const { model, tools, maxTurns } = resolveLoopOptions(options);
  const descriptors = [...tools.values()].map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.jsonSchema }));

  const start = (transcript: readonly Message[], signal: AbortSignal | undefined, firstCallIndex: number): EngineRun => {
    const channel = new EventChannel<RunEvent>();
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    const runId = `loop-${randomUUID()}`;
    const startedAt = performance.now();
    const messages: Message[] = [...transcript];
    let usage: Usage = ZERO_USAGE;
    let costUsd = 0;
    let turns = 0;
    let toolCalls = 0;
    let text = '';
    let modelCalls = 0;

    // Every error end of this loop is a model failure: tools cannot fail the run.
    const end = (stopReason: StopReason, stopDetail: string) => {
      const output: EngineOutput = {
        text,
        stopReason,
        stopDetail,
        ...(stopReason === 'error' ? { stopCode: 'model_failed' as const } : {}),
        usage,
        metrics: { turns, toolCalls, costUsd, durationMs: Math.max(0, performance.now() - startedAt) },
      };
      return { output, messages, modelCalls };
    };
    const canceled = () => end('context_canceled', 'the caller aborted (AbortSignal)');

    const loop = async () => {
      while (true) {
        if (controller.signal.aborted) return canceled();
        const turnIndex = turns;
        modelCalls += 1;
        const result = await model.call({
          messages: [...messages],
          tools: descriptors,
          signal: controller.signal,
          callIndex: firstCallIndex + turnIndex,
          onTextDelta: (delta) => {
            if (delta !== '' && !controller.signal.aborted) channel.push({ type: 'text_delta', turnIndex, delta });
          },
        });
        if (controller.signal.aborted) return canceled();
        if (result.usage !== undefined) usage = addUsage(usage, result.usage);
        turns += 1;
        if (result.type === 'failure') {
          text = '';
          channel.push({ type: 'turn_end', turnIndex, text: '', toolCalls: 0 });
          return end('error', `model failure: ${result.code}: ${result.message}`);
        }
        costUsd += result.costUsd;
        text = result.text;
        messages.push(result.toolCalls.length > 0 ? { role: 'assistant', content: result.text, toolCalls: result.toolCalls } : { role: 'assistant', content: result.text });
        const filtered = result.finishReason === 'content_filter';
        const blocked = () => end('error', 'model failure: the output was blocked by the provider content filter (content_filter)');
        if (result.toolCalls.length === 0) {
          channel.push({ type: 'turn_end', turnIndex, text: result.text, toolCalls: 0 });
          return filtered ? blocked() : end('planner_stopped', 'the model answered without tool calls');
        }
        let terminating = 0;
        for (const call of result.toolCalls) {
          if (controller.signal.aborted) return canceled();
          channel.push({ type: 'tool_call_start', turnIndex, toolCallId: call.id, name: call.name, args: call.args });
          const outcome = await runLoopToolCall(call, { tools, runId, signal: controller.signal });
          toolCalls += 1;
          if (outcome.terminate) terminating += 1;
          messages.push({ role: 'tool', toolCallId: outcome.toolCallId, name: outcome.name, content: outcome.content, isError: outcome.isError } satisfies ToolMessage);
          channel.push({ type: 'tool_call_end', turnIndex, toolCallId: call.id, name: call.name, result: outcome.result, isError: outcome.isError });
        }
        // A turn cut by a cancel has no turn_end (as in the kernel, which never closes it).
        if (controller.signal.aborted) return canceled();
        channel.push({ type: 'turn_end', turnIndex, text: result.text, toolCalls: result.toolCalls.length });
        if (filtered) return blocked();
        if (terminating === result.toolCalls.length) return end('tool_terminated', `every tool result of turn ${turns} asked to terminate`);
        if (turns >= maxTurns) return end('max_turns', `turn ${turns} reached maxTurns=${maxTurns}`);
      }
    };

    // A model adapter that rejects (instead of returning a failure) still ends the run as data;
    // tools cannot reject (executeTool settles every outcome).
    const finished = loop()
      .catch((error: unknown) => (controller.signal.aborted ? canceled() : end('error', `model failure: model_threw: ${describeError(error)}`)))
      .finally(() => {
        signal?.removeEventListener('abort', onAbort);
        channel.close();
      });
    return { events: channel, finished, cancel: () => controller.abort(new FailureError({ code: 'run_ended', message: 'the stream was closed by its consumer' })) };
  };

  return createEngineShell('loop', options.system, start);
}

function resolveLoopOptions(options: LoopEngineOptions): { model: Model; tools: ReadonlyMap<string, Tool>; maxTurns: number } {
  const issues: ConfigIssue[] = [];
  if (typeof options !== 'object' || options === null) throw new ConfigError({ message: 'Invalid loopEngine options', issues: [{ path: '', message: 'must be an object' }] });
  if (typeof options.model !== 'object' || options.model === null || typeof options.model.call !== 'function') {
    issues.push({ path: 'model', message: 'must be a Model (an object with call())' });
  }
  const maxTurns = options.maxTurns ?? DEFAULT_BOUNDS.inner.maxTurns;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) issues.push({ path: 'maxTurns', message: 'must be a positive integer' });
  if (options.system !== undefined && typeof options.system !== 'string') issues.push({ path: 'system', message: 'must be a string' });
  if (options.tools !== undefined && !Array.isArray(options.tools)) issues.push({ path: 'tools', message: 'must be an array of tools' });
  const { tools, issues: toolIssues } = toolListIssues(Array.isArray(options.tools) ? options.tools : []);
  issues.push(...toolIssues);
  if (issues.length > 0) throw new ConfigError({ message: 'Invalid loopEngine options', issues });
  return { model: options.model, tools, maxTurns };
}
