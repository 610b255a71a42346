/**
 * `POST /api/runs/<runId>/fork` — the viewer's "fork from here" (docs/time-travel.md). Served
 * only when the viewer was started with `control`; then only to the viewer's own page: the
 * request must come from this origin (see `sameOrigin`; the Host allow-list is checked before)
 * with a JSON body, which a page elsewhere cannot send without a CORS preflight this server never
 * answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ForkPoint } from '../contracts/fork.js';
import type { ViewerControl } from './viewer-control.js';
import { describeError, isDualloopError, isDualloopErrorOf } from '../errors.js';
import { sendJson, sendText } from './local-http.js';

/** A point is a few dozen bytes; anything much larger is not from the page. */
const MAX_BODY_BYTES = 4096;

export async function handleForkRequest(request: IncomingMessage, response: ServerResponse, runId: string, control: ViewerControl | undefined): Promise<void> {
  if (request.method !== 'POST') return sendText(response, 405, 'method not allowed');
  if (control === undefined) return sendText(response, 403, 'control is disabled: start the viewer with control enabled (dualloop view --control)');
  if (!sameOrigin(request)) return sendText(response, 403, 'forbidden origin');
  if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) return sendText(response, 415, 'expected application/json');
  const body = await readBody(request);
  if (body === undefined) return sendText(response, 413, `request body over ${MAX_BODY_BYTES} bytes`);
  let at: unknown;
  try {
    at = (JSON.parse(body) as { at?: unknown } | null)?.at;
  } catch {
    return sendText(response, 400, 'the body is not JSON');
  }
  try {
    return sendJson(response, 200, { runId: await control.fork(runId, at as ForkPoint) });
  } catch (error) {
    const status = isDualloopError(error, 'config_invalid') ? 400 : isDualloopErrorOf(error, 'run') ? (error.code === 'run_not_found' ? 404 : 409) : 500;
    return sendJson(response, status, { error: describeError(error), ...(isDualloopError(error) ? { code: error.code } : {}) });
  }
}

/**
 * The request comes from a page of this origin: its `Origin` names the `Host` it was sent to, or,
 * when a browser leaves `Origin` out of a same-origin request (Chromium does for same-origin
 * fetches), its `Sec-Fetch-Site` — a header no page can set — says `same-origin`.
 */
function sameOrigin(request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return request.headers['sec-fetch-site'] === 'same-origin';
  if (request.headers.host === undefined || !URL.canParse(origin)) return false;
  const url = new URL(origin);
  return url.protocol === 'http:' && url.host === request.headers.host.toLowerCase();
}

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        request.removeAllListeners('data');
        request.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
