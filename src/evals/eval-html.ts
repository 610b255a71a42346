/**
 * The static HTML report of an eval (docs/evals.md, "The HTML report"): one file, no script, no
 * request beyond itself (its Content-Security-Policy forbids any), readable offline. Per case the
 * two sides in numbers, the scores with their reasons, the outputs side by side, and the two
 * trajectories turn by turn with the first divergent turn highlighted. Everything recorded is
 * escaped: model text and tool arguments are hostile. Pure: the same report gives the same page.
 */
import type { EvalCaseReport, EvalReport, EvalSide, TrajectoryTurn } from '../contracts/evals.js';
import { canonicalJson } from '../loop/tool-call-key.js';

/** Longest text shown from one turn or output; the rest is cut with a note (the store has it all). */
const MAX_SHOWN_CHARS = 4_000;

export interface EvalHtmlOptions {
  /** Gates to show beside the means (`--fail-under`). */
  readonly gates?: readonly { readonly scorer: string; readonly threshold: number }[];
}

export function evalReportHtml(report: EvalReport, options: EvalHtmlOptions = {}): string {
  const title = `dualloop eval — ${report.suite}`;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escape(title)}</title><style>${STYLE}</style></head><body>`,
    `<h1>${escape(title)}</h1>`,
    summary(report, options),
    ...report.cases.map(caseSection),
    '</body></html>',
    '',
  ].join('\n');
}

function summary(report: EvalReport, options: EvalHtmlOptions): string {
  const { totals } = report;
  const means = Object.entries(report.means).map(([scorer, mean]) => {
    const gate = options.gates?.find((entry) => entry.scorer === scorer);
    const verdict = gate === undefined ? '' : mean >= gate.threshold ? `<span class="pass">≥ ${gate.threshold} pass</span>` : `<span class="fail">&lt; ${gate.threshold} fail</span>`;
    return `<tr data-scorer="${escape(scorer)}"><th>${escape(scorer)}</th><td class="num" data-mean>${mean.toFixed(3)}</td><td>${verdict}</td></tr>`;
  });
  return [
    '<section id="summary">',
    `<p>Tools <b>${report.tools}</b> · suite <b data-suite-stop>${report.stop}</b> · ${totals.evaluated}/${totals.cases} cases evaluated` +
      `${totals.skipped > 0 ? `, ${totals.skipped} skipped` : ''}${totals.failed > 0 ? `, <span class="fail">${totals.failed} failed</span>` : ''}` +
      ` · candidate ${usd(totals.candidateCostUsd)} (baseline ${usd(totals.baselineCostUsd)}), ${totals.candidateTokens} tokens</p>`,
    `<table class="means"><thead><tr><th>Scorer</th><th>Mean</th><th>Gate</th></tr></thead><tbody>${means.join('')}</tbody></table>`,
    '</section>',
  ].join('\n');
}

function caseSection(entry: EvalCaseReport): string {
  const low = entry.scores.some((score) => score.score < 1);
  return [
    `<section class="case${low ? ' low' : ''}" data-case="${escape(entry.name)}" data-status="${entry.status}">`,
    `<h2>${escape(entry.name)} <small>${entry.status}${entry.divergedAt === undefined ? '' : ` · diverges at turn ${entry.divergedAt}`}</small></h2>`,
    entry.problem === undefined ? '' : `<p class="problem">${escape(entry.problem)}</p>`,
    entry.candidate === undefined ? '' : sides(entry.baseline, entry.candidate),
    entry.scores.length === 0
      ? ''
      : `<table class="scores"><tbody>${entry.scores.map((score) => `<tr data-scorer="${escape(score.scorer)}" class="${score.score < 1 ? 'fail' : 'pass'}"><th>${escape(score.scorer)}</th><td class="num">${score.score.toFixed(2)}</td><td>${escape(score.reason ?? '')}</td></tr>`).join('')}</tbody></table>`,
    entry.candidate === undefined ? '' : outputs(entry),
    entry.trajectories === undefined ? '' : trajectories(entry.trajectories.baseline, entry.trajectories.candidate, entry.divergedAt),
    '</section>',
  ].join('\n');
}

function sides(baseline: EvalSide | undefined, candidate: EvalSide): string {
  const row = (label: string, show: (side: EvalSide) => string) => `<tr><th>${label}</th><td>${baseline === undefined ? '—' : show(baseline)}</td><td>${show(candidate)}</td></tr>`;
  return [
    '<table class="sides"><thead><tr><th></th><th>Baseline</th><th>Candidate</th></tr></thead><tbody>',
    row('Run', (side) => `<code>${escape(side.runId)}</code>`),
    row('Stop', (side) => `<span class="stop">${escape(side.stop.reason)}</span>`),
    row('Turns', (side) => String(side.turns)),
    row('Tool calls', (side) => String(side.toolCalls)),
    row('Tokens', (side) => String(side.tokens)),
    row('Cost', (side) => usd(side.costUsd)),
    row('Runtime', (side) => `${side.runtimeMs} ms`),
    '</tbody></table>',
  ].join('');
}

function outputs(entry: EvalCaseReport): string {
  const shown = (value: unknown) => `<pre>${escape(cut(typeof value === 'string' ? value : JSON.stringify(value, null, 2) ?? 'undefined'))}</pre>`;
  const state = entry.outputChanged === undefined ? '' : entry.outputChanged ? ' <span class="fail" data-output-changed="true">changed</span>' : ' <span class="pass" data-output-changed="false">same</span>';
  return `<h3>Output${state}</h3><div class="pair"><div><h4>Baseline</h4>${entry.baseline === undefined ? '<p>—</p>' : shown(entry.baseline.output)}</div><div><h4>Candidate</h4>${shown(entry.candidate?.output)}</div></div>`;
}

function trajectories(baseline: readonly TrajectoryTurn[], candidate: readonly TrajectoryTurn[], divergedAt: number | undefined): string {
  const rows: string[] = [];
  for (let index = 0; index < Math.max(baseline.length, candidate.length); index += 1) {
    const number = index + 1;
    const state = divergedAt === undefined || number < divergedAt ? 'same' : number === divergedAt ? 'diverged' : 'after';
    rows.push(`<tr class="${state}" data-turn="${number}"${state === 'diverged' ? ' data-diverged="true" id="diverged"' : ''}><td class="num">${number}</td><td data-side="baseline">${turnCell(baseline[index])}</td><td data-side="candidate">${turnCell(candidate[index])}</td></tr>`);
  }
  return `<h3>Trajectories</h3><table class="trajectory"><thead><tr><th>#</th><th>Baseline</th><th>Candidate</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function turnCell(turn: TrajectoryTurn | undefined): string {
  if (turn === undefined) return '<span class="none">no turn</span>';
  const calls = turn.toolCalls.map((call) => `<li class="${call.isError ? 'error' : ''}"><code>${escape(call.name)}(${escape(cut(canonicalJson(call.args) ?? ''))})</code>${call.isError ? ' — error' : ''}</li>`);
  return `<div class="where">${escape(turn.task)} · turn ${turn.turn}</div>${turn.text === '' ? '' : `<pre>${escape(cut(turn.text))}</pre>`}${calls.length === 0 ? '' : `<ul>${calls.join('')}</ul>`}`;
}

function cut(text: string): string {
  return text.length <= MAX_SHOWN_CHARS ? text : `${text.slice(0, MAX_SHOWN_CHARS)}… (${text.length - MAX_SHOWN_CHARS} more characters in the store)`;
}

function usd(value: number): string {
  return `$${value.toFixed(4)}`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d2330;background:#fafbfc}
h1{font-size:20px}h2{font-size:16px;margin:0 0 8px}h2 small{font-weight:normal;color:#5b6475}
section.case{background:#fff;border:1px solid #d8dde6;border-radius:6px;padding:12px 16px;margin:16px 0}
section.case.low{border-left:4px solid #c0392b}
table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #e1e5ec;padding:4px 8px;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#1e7d32}.fail{color:#c0392b}.problem{color:#c0392b}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:12px}
pre{white-space:pre-wrap;word-break:break-word;margin:4px 0;background:#f3f5f8;padding:6px;border-radius:4px;max-height:320px;overflow:auto}
table.trajectory{width:100%;table-layout:fixed}table.trajectory td:first-child,table.trajectory th:first-child{width:40px}
tr.diverged td{background:#fff1d6;outline:2px solid #e0a100}tr.after td{background:#fbfbf3}
.where{color:#5b6475;font-size:12px}ul{margin:4px 0;padding-left:18px}li.error code{color:#c0392b}.none{color:#9aa3b2}
`;
