/** A hook (before/after/policy) threw, or the store refused to record the result: the task ends `error`. */
export class ToolHookFailure extends Error {
  constructor(readonly scope: 'hook' | 'policy' | 'store', message: string) {
    super(message);
  }
}
