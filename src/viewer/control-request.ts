/**
 * What every control request of the viewer goes through (`POST /api/runs/<runId>/fork|approve`):
 * served only when the viewer was started with `control`, then only to the viewer's own page — the
 * request must come from this origin (see `sameOrigin`; the Host allow-list is checked before)
 * with a small JSON body, which a page elsewhere cannot send without a CORS preflight this server
 * never answers. A refused request is answered here; an accepted one gives its parsed body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ViewerControl } from './viewer-control.js';
import { describeError, isDualloopError, isDualloopErrorOf } from '../errors.js';
import { sendJson, sendText } from './local-http.js';

/** `maxBytes`: the most a body of this request can be when it comes from the page; anything larger is refused (413). */
export async function readControlRequest(request: IncomingMessage, response: ServerResponse, control: ViewerControl | undefined, maxBytes: number): Promise<{ readonly body: unknown } | undefined> {
  if (request.method !== 'POST') return void sendText(response, 405, 'method not allowed');
  if (control === undefined) return void sendText(response, 403, 'control is disabled: start the viewer with control enabled (dualloop view --control)');
  if (!sameOrigin(request)) return void sendText(response, 403, 'forbidden origin');
  if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) return void sendText(response, 415, 'expected application/json');
  const text = await readBody(request, maxBytes);
  if (text === undefined) return void sendText(response, 413, `request body over ${maxBytes} bytes`);
  try {
    return { body: JSON.parse(text) as unknown };
  } catch {
    return void sendText(response, 400, 'the body is not JSON');
  }
}

/** A control's failure as the page reads it: 400 for invalid input (with its issues), 404/409 for the run, 500 otherwise. */
export function sendControlFailure(response: ServerResponse, error: unknown): void {
  const status = isDualloopError(error, 'config_invalid') ? 400 : isDualloopErrorOf(error, 'run') ? (error.code === 'run_not_found' ? 404 : 409) : 500;
  const issues = isDualloopErrorOf(error, 'config') ? { issues: error.issues } : {};
  sendJson(response, status, { error: describeError(error), ...(isDualloopError(error) ? { code: error.code } : {}), ...issues });
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

function readBody(request: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        request.removeAllListeners('data');
        request.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(size > maxBytes ? undefined : Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
