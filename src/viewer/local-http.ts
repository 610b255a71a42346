import type { Server, ServerResponse } from 'node:http';

/** Where the viewer and the inspector bridge listen unless told otherwise: this machine only. */
export const DEFAULT_HOST = '127.0.0.1';

/** Starts listening; resolves with the port (an ephemeral one for port 0). */
export function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

/** `http://127.0.0.1:8080` (IPv6 hosts in brackets). */
export function originOf(host: string, port: number): string {
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}

/** Opens a server-sent-events response. */
export function startEventStream(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
  response.write(': stream open\n\n');
}

/** Writes one server-sent event (`data` as JSON; every line of it prefixed, as SSE requires). */
export function writeEvent(response: ServerResponse, message: { readonly event?: string; readonly id?: string | number; readonly data: unknown }): void {
  let frame = '';
  if (message.event !== undefined) frame += `event: ${message.event}\n`;
  if (message.id !== undefined) frame += `id: ${message.id}\n`;
  frame += `data: ${safeJson(message.data)}\n\n`;
  response.write(frame);
}

/** JSON that survives what tool results and snapshots may hold: cycles, bigints, functions. */
export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, field: unknown) => (typeof field === 'bigint' ? field.toString() : field)) ?? 'null';
  } catch {
    const seen = new WeakSet<object>();
    return (
      JSON.stringify(value, (_key, field: unknown) => {
        if (typeof field === 'bigint') return field.toString();
        if (typeof field === 'function') return `[function ${field.name}]`;
        if (typeof field === 'object' && field !== null) {
          if (seen.has(field)) return '[circular]';
          seen.add(field);
        }
        return field;
      }) ?? 'null'
    );
  }
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  response.end(safeJson(body));
}

export function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(text);
}
