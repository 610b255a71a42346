import { createInspector } from '@statelyai/inspect';
import type { InspectObserver } from '../events/observers.js';
import { startInspectorBridge } from './inspector-bridge.js';
import { WebSocketSender } from './websocket-sender.js';

export interface StatelyInspectorOptions {
  /**
   * A WebSocket receiver to send the inspection events to (`ws://127.0.0.1:8080`, e.g. one
   * started with `createInspectorServer` from `@statelyai/inspect/server`). Without it, a local
   * page embedding the hosted Stately inspector is served instead (see `url`).
   */
  readonly url?: string;
  /** Where the local page listens (default 127.0.0.1, an ephemeral port). */
  readonly host?: string;
  readonly port?: number;
  /** Host names the local page also answers to, besides localhost, 127.0.0.1 and [::1]. */
  readonly allowedHosts?: readonly string[];
  /** The local page's access token; required when `host` is not a loopback address (ADR/0101). */
  readonly token?: string;
  /** The inspector app the local page embeds (default https://stately.ai/inspect). */
  readonly inspectorUrl?: string;
  /** Told when the receiver cannot be reached; the run goes on without it. Default: stderr. */
  readonly onProblem?: (message: string) => void;
}

export interface StatelyInspector {
  /** The XState inspection observer: pass it as the kernel's `inspect` option. */
  readonly inspect: InspectObserver;
  /** `page`: `url` is the local page to open; `websocket`: `url` is the receiver events go to. */
  readonly mode: 'page' | 'websocket';
  readonly url: string;
  /** Delivers what is still queued (waiting at most `timeoutMs`, default 2 s, for the receiver), then stops (and closes the page's server). */
  close(timeoutMs?: number): Promise<void>;
}

/**
 * Wires `@statelyai/inspect` to the kernel: every actor of a run (the workflow machine, each task's
 * turn machine as its child `task`, and their service actors) is registered with the inspector and
 * each snapshot and event is sent as it happens, converted by the library's `createInspector`. The
 * library forwards snapshots only; the kernel hands every state a run enters to `inspect` as a
 * snapshot (src/events/every-state-inspection.ts), so OBSERVE, NEXT_TURN and INIT show too.
 * docs/viewer.md says what the inspector shows; ADR/0080 why the transport is ours.
 */
export async function createStatelyInspector(options: StatelyInspectorOptions = {}): Promise<StatelyInspector> {
  const onProblem = options.onProblem ?? ((message: string) => process.stderr.write(`dualloop inspector: ${message}\n`));
  if (options.url !== undefined) {
    const sender = new WebSocketSender(options.url, onProblem);
    const inspector = createInspector({ start: () => sender.start(), send: (event) => sender.send(event) });
    inspector.start();
    return {
      inspect: inspector.inspect as InspectObserver,
      mode: 'websocket',
      url: options.url,
      close: async (timeoutMs) => {
        await afterPendingInspection();
        await sender.close(timeoutMs);
      },
    };
  }
  const bridge = await startInspectorBridge({
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.inspectorUrl === undefined ? {} : { inspectorUrl: options.inspectorUrl }),
  });
  const inspector = createInspector({ send: (event) => bridge.send(event) });
  inspector.start();
  return {
    inspect: inspector.inspect as InspectObserver,
    mode: 'page',
    url: bridge.url,
    close: async () => {
      await afterPendingInspection();
      await bridge.close();
    },
  };
}

/**
 * The library converts each inspection event in a `setTimeout(0)` callback (its idle callback in
 * Node); a timer set now runs after all of those already set.
 */
function afterPendingInspection(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
