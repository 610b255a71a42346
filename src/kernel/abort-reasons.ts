import { FailureError } from '../errors.js';

/**
 * The reasons the kernel aborts its own signals with (a tool sees them as `signal.reason`). Built
 * once: an Error captures a stack trace when it is created, and these are created on every task
 * stop and run end otherwise (issue 16). Shared and never thrown, so their stack says nothing; the
 * message and the code say why.
 */
export const TASK_STOPPED: FailureError = new FailureError({ code: 'task_stopped', message: 'task stopped' });
export const RUN_ENDED: FailureError = new FailureError({ code: 'run_ended', message: 'run ended' });
