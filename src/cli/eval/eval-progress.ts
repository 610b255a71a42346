/**
 * Progress of `dualloop eval` on stderr: on a terminal a bar redrawn in place (log-update), else
 * one line per finished case, so a CI log shows each case as it ends.
 */
import { createLogUpdate } from 'log-update';
import type { EvalCaseReport } from '../../contracts/evals.js';

const BAR_WIDTH = 24;

export interface EvalProgress {
  caseEnded(entry: EvalCaseReport, done: number, total: number): void;
  close(): void;
}

export function evalProgress(stream: NodeJS.WriteStream, suite: string, total: number): EvalProgress {
  if (stream.isTTY !== true) {
    stream.write(`eval ${suite}: ${total} case${total === 1 ? '' : 's'}\n`);
    return {
      caseEnded: (entry, done, all) => stream.write(`[${done}/${all}] ${entry.name}: ${summary(entry)}\n`),
      close: () => undefined,
    };
  }
  const update = createLogUpdate(stream);
  const draw = (done: number, last?: EvalCaseReport) => {
    const filled = total === 0 ? BAR_WIDTH : Math.round((done / total) * BAR_WIDTH);
    update(`eval ${suite} [${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}] ${done}/${total}${last === undefined ? '' : ` · ${last.name}: ${summary(last)}`}`);
  };
  draw(0);
  return {
    caseEnded: (entry, done) => draw(done, entry),
    close: () => update.done(),
  };
}

function summary(entry: EvalCaseReport): string {
  if (entry.status !== 'evaluated') return `${entry.status}${entry.problem === undefined ? '' : ` (${entry.problem})`}`;
  const scores = entry.scores.map((score) => `${score.scorer} ${score.score.toFixed(2)}`).join(', ');
  return `${entry.candidate?.stop.reason ?? ''}${scores === '' ? '' : ` · ${scores}`}`;
}
