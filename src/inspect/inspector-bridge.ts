import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { accessChecker, validateAccess, withToken, type AccessVerdict } from '../viewer/access-control.js';
import { DEFAULT_HOST, listen, originOf, safeJson, sendText, startEventStream } from '../viewer/local-http.js';

/** Where the hosted Stately inspector lives; the bridge page embeds it. */
export const STATELY_INSPECTOR_URL = 'https://stately.ai/inspect';

/** Non-registration events kept for a page that opens late (actor registrations are all kept). */
const KEEP_RECENT = 2_000;

export interface InspectorBridgeOptions {
  readonly host?: string;
  readonly port?: number;
  /** Host names besides localhost, 127.0.0.1 and [::1] that requests may be addressed to (ADR/0101). */
  readonly allowedHosts?: readonly string[];
  /** The access token requests must carry; required when `host` is not a loopback address. */
  readonly token?: string;
  /** The inspector page to embed (default the hosted Stately inspector). */
  readonly inspectorUrl?: string;
}

export interface InspectorBridge {
  /** The page to open: it embeds the inspector and feeds it this process's inspection events. */
  readonly url: string;
  /** Hands one Stately inspection event to every open page (and keeps it for pages opened later). */
  send(event: { readonly type: string }): void;
  close(): Promise<void>;
}

/**
 * A loopback page for the hosted Stately inspector. The page embeds the inspector in an iframe and
 * relays this process's inspection events to it with `postMessage` once it says it is connected
 * (`@statelyai.connected`, the inspector's browser protocol); the events reach the page over SSE.
 * Nothing leaves the machine except what the inspector page itself does in the browser: it is
 * Stately's hosted app and needs internet (ADR/0080).
 */
export async function startInspectorBridge(options: InspectorBridgeOptions = {}): Promise<InspectorBridge> {
  const host = options.host ?? DEFAULT_HOST;
  validateAccess('inspector page', host, options);
  let check: (request: IncomingMessage) => AccessVerdict = () => ({ ok: false, status: 403, message: 'not ready' });
  const inspectorUrl = options.inspectorUrl ?? STATELY_INSPECTOR_URL;
  const registrations: { id: number; data: string }[] = [];
  let recent: { id: number; data: string }[] = [];
  let nextId = 1;
  const pages = new Set<ServerResponse>();

  const server = createServer((request, response) => {
    const verdict = check(request);
    if (!verdict.ok) return sendText(response, verdict.status, verdict.message);
    if (verdict.setCookie !== undefined) response.setHeader('set-cookie', verdict.setCookie);
    const path = new URL(request.url ?? '/', 'http://bridge').pathname;
    if (path === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(bridgePage(inspectorUrl));
      return;
    }
    if (path === '/events') {
      const after = Number(request.headers['last-event-id'] ?? 0) || 0;
      startEventStream(response);
      const backlog = [...registrations, ...recent].filter((event) => event.id > after).sort((left, right) => left.id - right.id);
      for (const event of backlog) response.write(`id: ${event.id}\ndata: ${event.data}\n\n`);
      pages.add(response);
      request.on('close', () => pages.delete(response));
      return;
    }
    sendText(response, 404, 'not found');
  });
  const port = await listen(server, host, options.port ?? 0);
  check = accessChecker(host, port, options);

  return {
    url: withToken(`${originOf(host, port)}/`, options.token),
    send(event) {
      const entry = { id: nextId++, data: safeJson(event) };
      if (event.type === '@xstate.actor') registrations.push(entry);
      else {
        recent.push(entry);
        if (recent.length > KEEP_RECENT * 2) recent = recent.slice(-KEEP_RECENT);
      }
      for (const page of pages) page.write(`id: ${entry.id}\ndata: ${entry.data}\n\n`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const page of pages) page.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function bridgePage(inspectorUrl: string): string {
  const origin = new URL(inspectorUrl).origin;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>dualloop · Stately inspector</title>
<style>html, body { margin: 0; height: 100%; } iframe { border: 0; width: 100%; height: 100%; }</style>
</head>
<body>
<iframe id="inspector" src="${escapeAttribute(inspectorUrl)}" title="Stately inspector"></iframe>
<script>
  // Relays dualloop's inspection events to the embedded inspector once it says it is listening.
  const frame = document.getElementById('inspector');
  const origin = ${JSON.stringify(origin)};
  const pending = [];
  let connected = false;
  window.addEventListener('message', (message) => {
    if (message.source !== frame.contentWindow || !message.data || message.data.type !== '@statelyai.connected') return;
    connected = true;
    for (const event of pending.splice(0)) frame.contentWindow.postMessage(event, origin);
  });
  new EventSource('/events').onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (connected) frame.contentWindow.postMessage(event, origin);
    else pending.push(event);
  };
</script>
</body>
</html>
`;
}

function escapeAttribute(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
}
