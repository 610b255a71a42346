// `dualloop/viewer`: the local run viewer's server, kept out of the root entry so that
// `import('dualloop')` does not load an HTTP server (ADR 0122).
export { startViewer, type Viewer, type ViewerOptions } from './viewer-server.js';
export type { ViewerControl } from './viewer-control.js';
