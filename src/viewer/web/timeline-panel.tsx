import { useEffect, useRef, useState } from 'preact/hooks';
import { formatDuration } from '../model/gauges.js';
import type { TimelineRow } from '../model/timeline.js';
import { formatForkPoint, type ForkPoint } from '../../contracts/fork.js';

interface Props {
  readonly rows: readonly TimelineRow[];
  /** Events applied so far: rows at or after it are in the future of the replay. */
  readonly cursor: number;
  readonly startedAt: number | undefined;
  readonly follow: boolean;
  /** Moves the replay to just after the row's event. */
  readonly onSelect: (position: number) => void;
  /** Forks the run before the row's turn; `undefined` when the viewer has no control (the buttons show disabled). */
  readonly onFork: ((at: ForkPoint) => void) | undefined;
  /** Opens another run's page: a delegating tool call's child run. */
  readonly onOpenRun: (runId: string) => void;
}

/** The run's events, oldest first; tool calls and answers open their details on demand. */
export function TimelinePanel({ rows, cursor, startedAt, follow, onSelect, onFork, onOpenRun }: Props) {
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const list = useRef<HTMLOListElement>(null);
  const currentIndex = rows.findLastIndex((row) => row.position < cursor);
  useEffect(() => {
    if (!follow) return;
    const element = list.current?.querySelector('.current');
    element?.scrollIntoView({ block: 'nearest' });
  }, [currentIndex, follow]);
  const toggle = (seq: number) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(seq)) next.delete(seq);
      else next.add(seq);
      return next;
    });
  return (
    <section class="timeline">
      <h2>
        events <small>{rows.length} shown (streaming deltas hidden)</small>
      </h2>
      <ol ref={list}>
        {rows.map((row, index) => (
          <li
            key={row.seq}
            class={`row ${row.tone}${index === currentIndex ? ' current' : ''}${row.position >= cursor ? ' future' : ''}`}
            data-seq={row.seq}
            data-type={row.type}
          >
            <button type="button" class="row-main" onClick={() => onSelect(row.position + 1)} title="replay up to this event">
              <span class="offset">{startedAt === undefined ? '' : `+${formatDuration(row.at - startedAt)}`}</span>
              <span class="where">{row.taskId === undefined ? '' : `${row.taskId}${row.turn === undefined ? '' : ` · ${row.turn}`}`}</span>
              <span class="summary">{row.summary}</span>
            </button>
            {row.forkPoint === undefined ? null : (
              <button
                type="button"
                class="fork"
                data-testid="fork-from-here"
                data-at={formatForkPoint(row.forkPoint)}
                disabled={onFork === undefined}
                title={onFork === undefined ? 'start the viewer with control enabled (dualloop view --control) to fork' : `start a new run from before turn ${row.forkPoint.turn} of task ${row.forkPoint.task}`}
                onClick={() => row.forkPoint !== undefined && onFork?.(row.forkPoint)}
              >
                fork from here
              </button>
            )}
            {row.childRunId === undefined ? null : <RunLink runId={row.childRunId} onOpen={onOpenRun} />}
            {row.details.length === 0 ? null : (
              <button type="button" class="details-toggle" aria-expanded={open.has(row.seq)} onClick={() => toggle(row.seq)}>
                {open.has(row.seq) ? 'hide' : row.type.startsWith('tool_execution') ? 'args/result' : 'details'}
              </button>
            )}
            {open.has(row.seq) ? (
              <div class="details">
                {row.details.map((detail) => (
                  <div key={detail.label}>
                    <h4>{detail.label}</h4>
                    <pre>{typeof detail.value === 'string' ? detail.value : JSON.stringify(detail.value, null, 2)}</pre>
                  </div>
                ))}
              </div>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** A link to a delegating call's child run: opens its page here (the address works in a new tab too). */
function RunLink({ runId, onOpen }: { readonly runId: string; readonly onOpen: (runId: string) => void }) {
  return (
    <a
      class="child-run"
      data-testid="open-child-run"
      data-run={runId}
      href={`?run=${encodeURIComponent(runId)}`}
      title={`open the child run ${runId} this call delegated to`}
      onClick={(event) => {
        event.preventDefault();
        onOpen(runId);
      }}
    >
      child run {runId} →
    </a>
  );
}
