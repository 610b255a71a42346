import type { AuditReport } from '../../contracts/audit.js';
import type { KernelEvent } from '../../contracts/events.js';
import { formatForkPoint, type ForkPoint } from '../../contracts/fork.js';
import type { ApprovalAnswer } from '../../contracts/policy.js';
import type { ChildRunLink, MachineGraphs, RunInfo, RunsResponse } from '../protocol.js';

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return (await response.json()) as T;
}

export const fetchMachines = () => getJson<MachineGraphs>('/api/machines');
export const fetchRuns = () => getJson<RunsResponse>('/api/runs');

/** Asks the viewer to fork `runId` at `at` (src/viewer/fork-route.ts); answers the new run's id. */
export async function forkRun(runId: string, at: ForkPoint): Promise<string> {
  const response = await fetch(`/api/runs/${encodeURIComponent(runId)}/fork`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ at }),
  });
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: string }).error ?? text;
    } catch {
      // a plain-text refusal
    }
    throw new Error(`fork ${runId} at ${formatForkPoint(at)}: ${message}`);
  }
  return (JSON.parse(text) as { runId: string }).runId;
}

/** Answers a parked approval of `runId` (src/viewer/approve-route.ts); rejects with the server's words, every refused field named. */
export async function approveCall(runId: string, approvalId: string, answer: ApprovalAnswer): Promise<void> {
  const response = await fetch(`/api/runs/${encodeURIComponent(runId)}/approve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ approvalId, answer }),
  });
  if (response.ok) return;
  const text = await response.text();
  let message = text;
  try {
    const body = JSON.parse(text) as { error?: string };
    message = body.error ?? text;
  } catch {
    // a plain-text refusal
  }
  throw new Error(message);
}

export interface RunStreamHandlers {
  onRun(info: RunInfo): void;
  onEvents(events: readonly KernelEvent[]): void;
  onAudit(audit: AuditReport): void;
  onChildren(children: readonly ChildRunLink[]): void;
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
  source.addEventListener('children', (message) => handlers.onChildren(parse<ChildRunLink[]>(message)));
  source.addEventListener('missing', () => {
    handlers.onMissing();
    source.close();
  });
  source.addEventListener('open', () => handlers.onConnection(true));
  source.addEventListener('error', () => handlers.onConnection(source.readyState === EventSource.OPEN));
  return () => source.close();
}
