import type { CheckpointStore } from '../contracts/store.js';
import type { Redactor } from './redactor.js';

/** The store methods that write; every argument object they take is redacted first. */
const WRITES = new Set<PropertyKey>(['createRun', 'saveCheckpoint', 'recordToolResult', 'appendEvent', 'saveResult']);

/**
 * The kernel's view of its store (ADR/0100): every write — the run record, checkpoint entries,
 * tool results, the event log, the final result — passes the redactor first; reads and anything
 * else (leases, the audit, methods a store adds) go through unchanged. Events and tool results
 * arrive already clean from the sink and the tool runner; the redactor remembers them and does
 * not walk them twice. Each method is wrapped once, on first use (a write per event must not
 * allocate a closure).
 */
export function redactingStore(store: CheckpointStore, redactor: Redactor): CheckpointStore {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property) {
      const member: unknown = Reflect.get(target, property, target);
      if (typeof member !== 'function') return member;
      const known = wrapped.get(property);
      if (known !== undefined) return known;
      const method = member as (...args: unknown[]) => unknown;
      const wrapper = WRITES.has(property)
        ? (...args: unknown[]) => method.apply(target, args.map((argument) => redactor.value(argument)))
        : method.bind(target);
      wrapped.set(property, wrapper);
      return wrapper;
    },
  });
}
