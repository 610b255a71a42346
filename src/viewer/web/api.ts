import type { AuditReport } from '../../contracts/audit.js';
import type { KernelEvent } from '../../contracts/events.js';
import type { MachineGraphs, RunInfo, RunsResponse } from '../protocol.js';

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return (await response.json()) as T;
}

export const fetchMachines = () => getJson<MachineGraphs>('/api/machines');
export const fetchRuns = () => getJson<RunsResponse>('/api/runs');

export interface RunStreamHandlers {
  onRun(info: RunInfo): void;
  onEvents(events: readonly KernelEvent[]): void;
  onAudit(audit: AuditReport): void;
  onMissing(): void;
  onConnection(connected: boolean): void;
}

/** Opens a run's event stream (src/viewer/run-stream.ts); the browser reconnects on its own, resuming after the last seq. */
export function openRunStream(runId: string, handlers: RunStreamHandlers): () => void {
  const source = new EventSource(`/api/runs/${encodeURIComponent(runId)}/stream`);
  const parse = <T,>(message: MessageEvent<string>) => JSON.parse(message.data) as T;
  source.addEventListener('run', (message) => handlers.onRun(parse<RunInfo>(message)));
  source.addEventListener('events', (message) => handlers.onEvents(parse<KernelEvent[]>(message)));
  source.addEventListener('audit', (message) => handlers.onAudit(parse<AuditReport>(message)));
  source.addEventListener('missing', () => {
    handlers.onMissing();
    source.close();
  });
  source.addEventListener('open', () => handlers.onConnection(true));
  source.addEventListener('error', () => handlers.onConnection(source.readyState === EventSource.OPEN));
  return () => source.close();
}
