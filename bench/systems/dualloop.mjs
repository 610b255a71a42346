/** dualloop with the in-memory store (`memoryStore()`), a checkpoint after every turn. */
import { createDualloopSystem, loadDualloop } from './dualloop-common.mjs';

export const meta = { label: 'dualloop (memoryStore)', packages: ['dualloop'] };

export async function createSystem(env) {
  const { memoryStore } = await loadDualloop();
  return createDualloopSystem(env, memoryStore(), 'dualloop');
}
