// `dualloop/inspect`: the Stately inspector bridge, kept out of the root entry so that
// `import('dualloop')` loads neither `@statelyai/inspect` nor `ws` (ADR 0122).
export { createStatelyInspector, type StatelyInspector, type StatelyInspectorOptions } from './stately-inspector.js';
