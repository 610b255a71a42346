/**
 * A system that lives in its own package under bench/peers/<id>/ (ADR 0124): pending until that
 * package is installed (`probe`: a path inside it), then loaded from its `system.mjs`, which
 * resolves its imports from its own install.
 */
import { existsSync } from 'node:fs';

export function peerSystem(id, probe) {
  const peer = new URL(`../peers/${id}/`, import.meta.url);
  return {
    pendingReason: () => (existsSync(new URL(probe, peer)) ? undefined : `bench/peers/${id} is not installed (npm run bench installs it)`),
    createSystem: async (env) => (await import(new URL('system.mjs', peer).href)).createSystem(env),
  };
}
