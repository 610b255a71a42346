/**
 * An error's message followed by its cause's, each said once. Node's `fetch` and the SDKs wrap a
 * network error whose message already ends with the cause's (`Cannot connect to API: connect
 * ECONNREFUSED 127.0.0.1:11434` over `connect ECONNREFUSED 127.0.0.1:11434`): the cause is added
 * only when the message does not hold it already.
 */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const message = error.message || error.name;
    const cause = error.cause instanceof Error ? error.cause.message : '';
    return cause === '' || message.includes(cause) ? message : `${message}: ${cause}`;
  }
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  return typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
}

/** A server's address for a message: scheme, host, port and path, never credentials or a query (which may hold a key). */
export function serverAddress(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return undefined;
  }
}
