import { request } from 'node:http';
import type { Viewer } from 'dualloop/viewer';

/** A POST to the viewer as a browser would send it, with the headers under test. */
export function post(current: Pick<Viewer, 'host' | 'port'>, path: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request({ host: current.host, port: current.port, path, method: 'POST', headers }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}
