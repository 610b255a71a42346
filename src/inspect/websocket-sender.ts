import WebSocket from 'ws';
import { safeJson } from '../viewer/local-http.js';

/** Inspection events kept while the receiver is not connected; beyond it the oldest are dropped. */
const MAX_QUEUED = 5_000;
const RETRY_MS = 1_000;

/**
 * Sends inspection events to a WebSocket receiver (`ws://…`): queued until it connects, retried
 * every second while it is unreachable, flushed on `close()` so a run that ends at once still
 * delivers everything. Failures are reported once through `onProblem`; they never reach the run.
 */
export class WebSocketSender {
  private socket: WebSocket | undefined;
  private queue: string[] = [];
  private inFlight = 0;
  private closed = false;
  private reported = false;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private readonly idle = new Set<() => void>();

  constructor(
    private readonly url: string,
    private readonly onProblem: (message: string) => void,
  ) {}

  start(): void {
    if (this.closed || this.socket !== undefined) return;
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.on('open', () => this.drain());
    socket.on('error', (error) => {
      if (!this.reported) this.onProblem(`cannot send to ${this.url}: ${error.message}`);
      this.reported = true;
    });
    socket.on('close', () => {
      this.socket = undefined;
      if (this.closed) return;
      this.retry = setTimeout(() => this.start(), RETRY_MS);
      this.retry.unref();
    });
  }

  send(event: unknown): void {
    if (this.closed) return;
    this.queue.push(safeJson(event));
    if (this.queue.length > MAX_QUEUED) this.queue.shift();
    this.drain();
  }

  /** Waits until every queued event is handed to the socket (at most `timeoutMs`), then closes. */
  async close(timeoutMs = 2_000): Promise<void> {
    if (this.closed) return;
    const drained = new Promise<void>((resolve) => {
      if (this.isIdle()) resolve();
      else this.idle.add(resolve);
    });
    const timer = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
    await Promise.race([drained, timer]);
    this.closed = true;
    if (this.retry !== undefined) clearTimeout(this.retry);
    this.socket?.close();
  }

  private drain(): void {
    const socket = this.socket;
    if (socket === undefined || socket.readyState !== WebSocket.OPEN) return;
    for (const frame of this.queue.splice(0)) {
      this.inFlight += 1;
      socket.send(frame, () => {
        this.inFlight -= 1;
        this.settle();
      });
    }
    this.settle();
  }

  private isIdle(): boolean {
    return this.queue.length === 0 && this.inFlight === 0;
  }

  private settle(): void {
    if (!this.isIdle()) return;
    for (const resolve of this.idle) resolve();
    this.idle.clear();
  }
}
