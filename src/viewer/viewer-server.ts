import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Bounds } from '../contracts/bounds.js';
import type { CheckpointStore, MaybePromise } from '../contracts/store.js';
import { describeError } from '../errors.js';
import { accessChecker, validateAccess, withToken, type AccessVerdict } from './access-control.js';
import { handleApproveRequest } from './approve-route.js';
import { handleForkRequest } from './fork-route.js';
import type { ViewerControl } from './viewer-control.js';
import { DEFAULT_HOST, listen, originOf, sendJson, sendText, startEventStream } from './local-http.js';
import { kernelMachineGraphs } from './machine-graph.js';
import type { RunsResponse } from './protocol.js';
import { streamRun } from './run-stream.js';
import { findAssetsDirectory, readAsset } from './static-assets.js';

export interface ViewerOptions {
  /** Where the runs are: the store the kernel writes (any CheckpointStore). */
  readonly store: CheckpointStore;
  /** Default 127.0.0.1: this machine only. Any other address needs `token`. */
  readonly host?: string;
  /** Host names besides localhost, 127.0.0.1 and [::1] that requests may be addressed to (ADR/0101). */
  readonly allowedHosts?: readonly string[];
  /** The access token requests must carry; required when `host` is not a loopback address. */
  readonly token?: string;
  /** Default 0: an ephemeral port (see `url`). */
  readonly port?: number;
  /** The run the page opens first (default: the most recent). */
  readonly runId?: string;
  /** The run's bounds, for the gauges' limits (tasks' inner bounds are in the store already). */
  readonly bounds?: (runId: string) => MaybePromise<Bounds | undefined>;
  /** How often a streamed run is checked for new events (default 200 ms). */
  readonly pollMs?: number;
  /** The built page (default dist/viewer/ of this package). */
  readonly assetsDirectory?: string;
  /**
   * Lets the page change things: "fork from here" on every turn of the timeline (docs/time-travel.md).
   * Without it the viewer is read-only and the page shows the control disabled. Beyond loopback the
   * fork requests, like every request, need `token` (ADR/0223).
   */
  readonly control?: ViewerControl;
}

export interface Viewer {
  /** The page, with `?run=<runId>` when a run was given (and `token=` when there is one). */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The page for one run. */
  urlFor(runId: string): string;
  /** Stops serving; open pages lose their stream. */
  close(): Promise<void>;
}

/**
 * Serves the local run viewer (docs/viewer.md): the page built into dist/viewer/, the machines'
 * graphs from their definitions, the store's runs, and each run as a live server-sent-event
 * stream. Nothing is fetched from elsewhere; the page's Content-Security-Policy allows only this
 * origin. Binds to loopback unless `host` says otherwise.
 */
export async function startViewer(options: ViewerOptions): Promise<Viewer> {
  const host = options.host ?? DEFAULT_HOST;
  validateAccess('startViewer', host, options);
  let check: (request: IncomingMessage) => AccessVerdict = () => ({ ok: false, status: 403, message: 'not ready' });
  const assets = findAssetsDirectory(options.assetsDirectory);
  const machines = kernelMachineGraphs();
  const closing = new AbortController();
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendText(response, 500, `viewer error: ${describeError(error)}`);
      else response.end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const verdict = check(request);
    if (!verdict.ok) return sendText(response, verdict.status, verdict.message);
    if (verdict.setCookie !== undefined) response.setHeader('set-cookie', verdict.setCookie);
    const url = new URL(request.url ?? '/', 'http://viewer');
    const path = url.pathname;
    const fork = /^\/api\/runs\/([^/]+)\/fork$/.exec(path);
    if (fork !== null) return handleForkRequest(request, response, decodeURIComponent(fork[1]!), options.control);
    const approve = /^\/api\/runs\/([^/]+)\/approve$/.exec(path);
    if (approve !== null) return handleApproveRequest(request, response, decodeURIComponent(approve[1]!), options.control);
    if (request.method !== 'GET' && request.method !== 'HEAD') return sendText(response, 405, 'method not allowed');
    if (path === '/api/machines') return sendJson(response, 200, machines);
    if (path === '/api/runs') {
      const runs = await options.store.listRuns({ limit: 100 });
      return sendJson(response, 200, { runs, selected: options.runId ?? runs[0]?.runId, control: options.control !== undefined, approve: options.control?.approve !== undefined } satisfies RunsResponse);
    }
    const stream = /^\/api\/runs\/([^/]+)\/stream$/.exec(path);
    if (stream !== null) {
      const disconnected = AbortSignal.any([closing.signal, abortOnClose(request)]);
      startEventStream(response);
      await streamRun(response, {
        store: options.store,
        runId: decodeURIComponent(stream[1]!),
        afterSeq: Number(request.headers['last-event-id'] ?? 0) || 0,
        pollMs: options.pollMs ?? 200,
        bounds: options.bounds,
        signal: disconnected,
      });
      response.end();
      return;
    }
    if (path === '/favicon.ico') {
      response.writeHead(204).end();
      return;
    }
    const asset = await readAsset(assets, path);
    if (asset === undefined) return sendText(response, 404, 'not found');
    response.writeHead(200, {
      'content-type': asset.type,
      'cache-control': 'no-store',
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
    });
    response.end(request.method === 'HEAD' ? undefined : asset.body);
  }

  const port = await listen(server, host, options.port ?? 0);
  check = accessChecker(host, port, options);
  const origin = originOf(host, port);
  const urlFor = (runId: string) => withToken(`${origin}/?run=${encodeURIComponent(runId)}`, options.token);
  return {
    url: options.runId === undefined ? withToken(`${origin}/`, options.token) : urlFor(options.runId),
    host,
    port,
    urlFor,
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Only this origin, for everything: the page works offline and cannot leak to elsewhere. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function abortOnClose(request: IncomingMessage): AbortSignal {
  const controller = new AbortController();
  request.socket.once('close', () => controller.abort());
  return controller.signal;
}
