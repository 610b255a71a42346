/**
 * A delegated run's id, from its parent's and the place of the call that started it (docs/delegation.md):
 * `<parentRunId>.t<task index>[i<item>].<turn>.<position>`, shortened with a hash past 128 characters.
 * Pure: the kernel names children with it, the audit finds a child's call by it.
 */
import { createHash } from 'node:crypto';

/** Where a delegating call is in its run: its task (and fan-out item), turn and position in the model's answer. */
export interface CallPlace {
  readonly taskIndex: number;
  readonly item: number | undefined;
  readonly turn: number;
  readonly position: number;
}

/** The id of the child run a call at `at` starts (the viewer finds a run's children by it). */
export function childRunIdAt(parentRunId: string, at: CallPlace): string {
  const place = `t${at.taskIndex}${at.item === undefined ? '' : `i${at.item}`}.${at.turn}.${at.position}`;
  const id = `${parentRunId}.${place}`;
  if (id.length <= 128) return id;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 16);
  return `${parentRunId.slice(0, 128 - place.length - 18)}.${hash}.${place}`;
}
