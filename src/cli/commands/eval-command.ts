/**
 * `dualloop eval <suite.yaml>` (docs/evals.md): replays the suite's cases with its candidate —
 * the workflow's manifest with the suite's changes — scores them, prints the table (or the JSON
 * report with --json), writes the HTML report with --html, and gates CI with --fail-under.
 * Progress goes to stderr. Ctrl-C stops the cases in flight with their checkpoints kept: the same
 * command run again finishes the suite without running a finished case twice.
 */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { EvalReport } from '../../contracts/evals.js';
import { describeError, isDualloopError } from '../../errors.js';
import { evalReportHtml } from '../../evals/eval-html.js';
import { loadManifest } from '../../manifest/load-manifest.js';
import { createManifestKernel } from '../../manifest/manifest-kernel.js';
import { complain, type CommandIO } from '../command-io.js';
import { prepareCandidate, suiteScorers } from '../eval/eval-candidate.js';
import { loadSuite, suiteCases } from '../eval/eval-suite.js';
import { evalProgress } from '../eval/eval-progress.js';
import { evalTable, type Gate } from '../eval/eval-table.js';
import { EXIT } from '../exit-codes.js';
import { colorsFor } from '../format.js';
import { addManifestMcp } from '../manifest-mcp.js';
import { reportIssues } from '../report-issues.js';
import { openCommandStore } from '../store-target.js';

export interface EvalFlags {
  readonly store?: string;
  readonly json?: boolean;
  readonly html?: string;
  /** `name=0.9`, one per gate. */
  readonly failUnder?: readonly string[];
  readonly concurrency?: number;
  readonly maxCostUsd?: number;
}

/** Exit codes: 0 every gate passed; 1 a gate failed; 2 the suite's budget stopped it; 4 a case could not run; 64 usage; 130 canceled. */
export const EVAL_EXIT = { passed: 0, gateFailed: 1, budget: 2, caseFailed: 4 } as const;

export async function evalCommand(suitePath: string, flags: EvalFlags, io: CommandIO): Promise<number> {
  const gates = parseGates(flags.failUnder ?? []);
  if ('problem' in gates) {
    complain(io, gates.problem);
    return EXIT.usage;
  }
  const suite = await loadSuite(suitePath, io.cwd);
  if (!suite.ok) {
    reportIssues(io.stderr, suite.issues);
    return EXIT.usage;
  }
  const workflow = await loadManifest(resolve(suite.value.directory, suite.value.suite.manifest), io.cwd);
  if (!workflow.ok) {
    reportIssues(io.stderr, workflow.issues);
    return EXIT.usage;
  }
  const candidate = await prepareCandidate(workflow.value, suite.value);
  const scorers = candidate.ok ? await suiteScorers(suite.value, candidate.value.loaded) : undefined;
  if (!candidate.ok || scorers === undefined || !scorers.ok) {
    reportIssues(io.stderr, [...(candidate.ok ? [] : candidate.issues), ...(scorers === undefined || scorers.ok ? [] : scorers.issues)]);
    return EXIT.usage;
  }
  const unknownGate = gates.value.find((gate) => !scorers.value.some((scorer) => scorer.name === gate.scorer));
  if (unknownGate !== undefined) {
    complain(io, `--fail-under ${unknownGate.scorer}: the suite has no scorer by that name (it has ${scorers.value.map((scorer) => scorer.name).join(', ')})`);
    return EXIT.usage;
  }
  const mcp = addManifestMcp(candidate.value.loaded, candidate.value.options);
  if ('error' in mcp) {
    complain(io, mcp.error);
    return EXIT.error;
  }
  const manifestStore = workflow.value.manifest.store === undefined ? undefined : resolve(workflow.value.directory, workflow.value.manifest.store.path);
  const opened = await openCommandStore({ flag: flags.store, ...(manifestStore === undefined ? {} : { manifestStore }), create: true }, io);
  if (opened === undefined) return EXIT.usage;
  const interrupt = trapInterrupt(io);
  try {
    const cases = await suiteCases(suite.value, opened.store);
    if (!cases.ok) {
      reportIssues(io.stderr, cases.issues);
      return EXIT.usage;
    }
    const kernel = createManifestKernel(candidate.value.loaded, mcp.options, opened.store);
    if (!kernel.ok) {
      reportIssues(io.stderr, kernel.issues);
      return EXIT.usage;
    }
    const { suite: spec } = suite.value;
    const progress = evalProgress(io.stderr, spec.suite, cases.value.length);
    let report: EvalReport;
    try {
      report = await kernel.value.evaluate(cases.value, {
        suite: spec.suite,
        scorers: scorers.value,
        ...(spec.tools === undefined ? {} : { tools: spec.tools }),
        ...pick('concurrency', flags.concurrency ?? spec.concurrency),
        ...pick('maxCostUsd', flags.maxCostUsd ?? spec.maxCostUsd),
        signal: interrupt.signal,
        onCase: (entry, done, total) => progress.caseEnded(entry, done, total),
      });
    } finally {
      progress.close();
    }
    if (flags.html !== undefined) {
      const path = resolve(io.cwd, flags.html);
      try {
        await writeFile(path, evalReportHtml(report, { gates: gates.value }));
      } catch (error) {
        complain(io, `cannot write the HTML report to ${flags.html}: ${describeError(error)}`);
        return EXIT.error;
      }
      io.stderr.write(`HTML report: ${flags.html}\n`);
    }
    if (flags.json === true) io.stdout.write(`${JSON.stringify({ ...report, gates: gateResults(report, gates.value) }, null, 2)}\n`);
    else io.stdout.write(evalTable(report, gates.value, colorsFor(io.stdout)));
    return exitCode(report, gates.value);
  } catch (error) {
    // A case naming a run the store does not hold or one that has not ended, two scorers of one name: each said.
    if (isDualloopError(error, 'config_invalid')) {
      complain(io, `${suitePath}: the suite cannot run on ${opened.where}:\n${error.issues.map((issue) => `  ${issue.path}: ${issue.message}`).join('\n')}`);
      return EXIT.usage;
    }
    complain(io, `the suite cannot run: ${describeError(error)}`);
    return EXIT.error;
  } finally {
    interrupt.release();
    await opened.close();
  }
}

function exitCode(report: EvalReport, gates: readonly Gate[]): number {
  if (report.stop === 'context_canceled') return EXIT.canceled;
  if (report.totals.failed > 0) return EVAL_EXIT.caseFailed;
  if (gateResults(report, gates).some((gate) => !gate.passed)) return EVAL_EXIT.gateFailed;
  if (report.stop === 'budget_exhausted') return EVAL_EXIT.budget;
  return EVAL_EXIT.passed;
}

function gateResults(report: EvalReport, gates: readonly Gate[]): { scorer: string; threshold: number; mean: number; passed: boolean }[] {
  return gates.map((gate) => {
    const mean = report.means[gate.scorer] ?? 0;
    return { scorer: gate.scorer, threshold: gate.threshold, mean, passed: mean >= gate.threshold };
  });
}

/** `--fail-under toolTrajectoryMatches=0.9` → the gate; a threshold outside [0, 1] is a usage error. */
export function parseGates(texts: readonly string[]): { value: Gate[] } | { problem: string } {
  const gates: Gate[] = [];
  for (const text of texts) {
    const found = /^([^=\s]+)=(\d*\.?\d+)$/.exec(text.trim());
    const threshold = found === null ? Number.NaN : Number(found[2]);
    if (found === null || !(threshold >= 0 && threshold <= 1)) return { problem: `--fail-under ${text}: expected <scorer>=<mean between 0 and 1>, e.g. outputEquals=0.9` };
    gates.push({ scorer: found[1]!, threshold });
  }
  return { value: gates };
}

function pick<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: number };
}

/** The first Ctrl-C (or SIGTERM) stops the cases in flight, checkpoints kept; a second exits 130 at once. */
function trapInterrupt(io: CommandIO): { readonly signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(EXIT.canceled);
    io.stderr.write(`${signal === 'SIGINT' ? 'Ctrl-C' : signal}: stopping the cases in flight and keeping their checkpoints; run the same command again to finish the suite (press Ctrl-C again to exit at once)\n`);
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    release() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
