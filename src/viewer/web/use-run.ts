import { useEffect, useState } from 'preact/hooks';
import type { AuditReport } from '../../contracts/audit.js';
import type { KernelEvent } from '../../contracts/events.js';
import type { ChildRunLink, RunInfo } from '../protocol.js';
import { openRunStream } from './api.js';

export interface RunData {
  readonly info: RunInfo | undefined;
  readonly events: readonly KernelEvent[];
  readonly audit: AuditReport | undefined;
  /** The child runs its tool calls started (`agentTool`), as the server found them. */
  readonly children: readonly ChildRunLink[];
  readonly missing: boolean;
  readonly connected: boolean;
  /** `performance.now()` when the latest event arrived, to let running clocks tick between events. */
  readonly receivedAt: number;
}

const EMPTY: RunData = { info: undefined, events: [], audit: undefined, children: [], missing: false, connected: false, receivedAt: 0 };

/** A run as its stream delivers it; reset when `runId` changes. */
export function useRun(runId: string | undefined): RunData {
  const [data, setData] = useState<RunData>(EMPTY);
  useEffect(() => {
    setData(EMPTY);
    if (runId === undefined) return undefined;
    return openRunStream(runId, {
      onRun: (info) => setData((current) => ({ ...current, info, missing: false })),
      onEvents: (batch) =>
        setData((current) => {
          const lastSeq = current.events[current.events.length - 1]?.seq ?? 0;
          const fresh = batch.filter((event) => event.seq > lastSeq);
          return fresh.length === 0 ? current : { ...current, events: [...current.events, ...fresh], receivedAt: performance.now() };
        }),
      onAudit: (audit) => setData((current) => ({ ...current, audit })),
      onChildren: (children) => setData((current) => ({ ...current, children })),
      onMissing: () => setData((current) => ({ ...current, missing: true })),
      onConnection: (connected) => setData((current) => (current.connected === connected ? current : { ...current, connected })),
    });
  }, [runId]);
  return data;
}
