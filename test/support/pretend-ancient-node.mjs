// Preloaded with `node --import` (test/cli/node-version.test.ts): the process looks like a
// Node.js so old that the command's own dependencies do not load on it — process.versions.node
// says 18.20.4 and the `commander` package cannot be loaded — so the executable's last resort
// (one line naming the Node it needs) is exercised on any Node.
import { registerHooks } from 'node:module';

Object.defineProperty(process.versions, 'node', { value: '18.20.4' });
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === 'commander') throw Object.assign(new Error(`Cannot find package '${specifier}'`), { code: 'ERR_MODULE_NOT_FOUND' });
    return nextResolve(specifier, context);
  },
});
