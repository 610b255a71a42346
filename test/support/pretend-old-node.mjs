// Preloaded with `node --import` (test/cli/node-version.test.ts): the process looks like Node.js 20
// to dualloop — process.versions.node says 20.11.1 and node:sqlite does not exist — so the
// version checks are exercised on any Node, not only where an old one is installed.
import { registerHooks } from 'node:module';

Object.defineProperty(process.versions, 'node', { value: '20.11.1' });
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === 'node:sqlite') {
      throw Object.assign(new Error(`No such built-in module: ${specifier}`), { code: 'ERR_UNKNOWN_BUILTIN_MODULE' });
    }
    return nextResolve(specifier, context);
  },
});
