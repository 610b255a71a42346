/**
 * The reasons the kernel aborts its own signals with. Built once: an Error captures a stack trace
 * when it is created, and these are created on every task stop and run end otherwise (issue 16).
 * Shared and never thrown, so their stack says nothing; the message says why.
 */
export const TASK_STOPPED: Error = new Error('task stopped');
export const RUN_ENDED: Error = new Error('run ended');
