import { isTerminatingOutput, type Tool, type ToolExecutionContext } from '../contracts/tool.js';

export interface ExecutionOutcome {
  readonly value: unknown;
  /** The tool threw, timed out or was cancelled; `value` is the error or the message. */
  readonly isError: boolean;
  /** The tool returned `terminate(value)`; `value` is unwrapped. */
  readonly terminate: boolean;
  /** Cut by the caller's signal (not by the tool's own timeout): the call did not complete. */
  readonly cancelled?: true;
}

/** The result of a call cut by its caller's signal. */
export const CANCELLED = 'cancelled: the task stopped';

export interface ExecuteToolOptions {
  /** Cancels the call (the task stopped, another call failed a hook). */
  readonly signal: AbortSignal;
  /** Timers for the tool's own `timeoutMs` (the kernel passes its injected clock). */
  readonly setTimer: (callback: () => void, delayMs: number) => unknown;
  readonly clearTimer: (handle: unknown) => void;
  /** Builds what `execute` receives beside its arguments, given the call's own signal. */
  readonly context: (signal: AbortSignal) => ToolExecutionContext;
}

class ToolTimeout extends Error {
  constructor() {
    super('tool timed out');
  }
}

/**
 * Runs a tool's `execute` with validated arguments, under its `timeoutMs` and the caller's signal.
 * A tool that ignores its signal is still cut: the outcome is settled as soon as the signal aborts.
 * Never throws; shared by the kernel's tool pipeline and `loopEngine`.
 */
export async function executeTool(tool: Tool, args: unknown, options: ExecuteToolOptions): Promise<ExecutionOutcome> {
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(options.signal.reason);
  if (options.signal.aborted) onOuterAbort();
  else options.signal.addEventListener('abort', onOuterAbort, { once: true });
  let timer: unknown;
  const stopped = new Promise<ExecutionOutcome>((resolve) => {
    const settle = () => {
      if (controller.signal.reason instanceof ToolTimeout) resolve({ value: `timed out after ${tool.timeoutMs} ms`, isError: true, terminate: false });
      else resolve({ value: CANCELLED, isError: true, terminate: false, cancelled: true });
    };
    if (controller.signal.aborted) settle();
    else controller.signal.addEventListener('abort', settle, { once: true });
    if (tool.timeoutMs !== undefined && !controller.signal.aborted) {
      timer = options.setTimer(() => controller.abort(new ToolTimeout()), tool.timeoutMs);
    }
  });
  if (controller.signal.aborted) return stopped;
  const running = (async (): Promise<ExecutionOutcome> => {
    try {
      const output = await tool.execute(args, options.context(controller.signal));
      return isTerminatingOutput(output)
        ? { value: output.value, isError: false, terminate: true }
        : { value: output, isError: false, terminate: false };
    } catch (error) {
      return { value: error, isError: true, terminate: false };
    }
  })();
  try {
    return await Promise.race([running, stopped]);
  } finally {
    if (timer !== undefined) options.clearTimer(timer);
    options.signal.removeEventListener('abort', onOuterAbort);
  }
}
