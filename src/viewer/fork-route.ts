/**
 * `POST /api/runs/<runId>/fork` — the viewer's "fork from here" (docs/time-travel.md), for the
 * viewer's own page when it was started with `control` (control-request.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ForkPoint } from '../contracts/fork.js';
import type { ViewerControl } from './viewer-control.js';
import { readControlRequest, sendControlFailure } from './control-request.js';
import { sendJson } from './local-http.js';

/** A point is a few dozen bytes; anything much larger is not from the page. */
const MAX_BODY_BYTES = 4096;

export async function handleForkRequest(request: IncomingMessage, response: ServerResponse, runId: string, control: ViewerControl | undefined): Promise<void> {
  const accepted = await readControlRequest(request, response, control, MAX_BODY_BYTES);
  if (accepted === undefined || control === undefined) return;
  const at = (accepted.body as { at?: unknown } | null)?.at;
  try {
    return sendJson(response, 200, { runId: await control.fork(runId, at as ForkPoint) });
  } catch (error) {
    return sendControlFailure(response, error);
  }
}
