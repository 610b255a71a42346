import type { StopVerdict } from '../contracts/hooks.js';
import { StopReason } from '../contracts/stop.js';
import { describeError } from '../errors.js';
import type { StopCandidate } from './inner-conditions.js';

/**
 * Runs user stop evaluators in order and returns the first verdict, checked against the
 * closed reason enum. A throw or an unknown reason becomes an `error` candidate naming the evaluator
 * (`stop_evaluator_failed`); a verdict `error` carries `error_verdict`.
 */
export async function firstVerdict(
  evaluators: readonly (() => StopVerdict | undefined | Promise<StopVerdict | undefined>)[],
  label: string,
): Promise<StopCandidate | undefined> {
  for (const [index, evaluate] of evaluators.entries()) {
    let verdict: StopVerdict | undefined;
    try {
      verdict = await evaluate();
    } catch (error) {
      return { reason: 'error', code: 'stop_evaluator_failed', detail: `${label} stop evaluator ${index} threw: ${describeError(error)}` };
    }
    if (verdict === undefined || verdict === null) continue;
    const reason = StopReason.safeParse(verdict.reason);
    if (!reason.success) {
      return { reason: 'error', code: 'stop_evaluator_failed', detail: `${label} stop evaluator ${index} returned an unknown reason "${String(verdict.reason)}"` };
    }
    const detail = verdict.detail ?? `${label} stop evaluator ${index}`;
    // An evaluator that judges the task failed answers `error`: the stop carries the code that says so.
    return reason.data === 'error' ? { reason: 'error', code: 'error_verdict', detail } : { reason: reason.data, detail };
  }
  return undefined;
}
