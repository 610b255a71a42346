/** One server-sent event as received. */
export interface ReceivedEvent {
  readonly event: string;
  readonly id: string | undefined;
  readonly data: any;
}

/**
 * Reads server-sent events from `url` until `until` says enough (or the server ends the stream),
 * then disconnects. Fails after `timeoutMs` with what it had received.
 */
export async function readEvents(url: string, until: (received: readonly ReceivedEvent[]) => boolean, options: { headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<ReceivedEvent[]> {
  const controller = new AbortController();
  const received: ReceivedEvent[] = [];
  const timer = setTimeout(() => controller.abort(new Error(`timed out; received: ${JSON.stringify(received.map((entry) => entry.event))}`)), options.timeoutMs ?? 10_000);
  try {
    const response = await fetch(url, { headers: { accept: 'text/event-stream', ...options.headers }, signal: controller.signal });
    if (!response.ok || response.body === null) throw new Error(`${url}: HTTP ${response.status}`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = { event: 'message', id: undefined as string | undefined, data: [] as string[] };
        for (const line of frame.split('\n')) {
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const name = line.slice(0, colon);
          const value = line.slice(colon + 1).replace(/^ /, '');
          if (name === 'event') fields.event = value;
          else if (name === 'id') fields.id = value;
          else if (name === 'data') fields.data.push(value);
        }
        if (fields.data.length === 0) continue;
        received.push({ event: fields.event, id: fields.id, data: JSON.parse(fields.data.join('\n')) });
        if (until(received)) return received;
      }
    }
    return received;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
