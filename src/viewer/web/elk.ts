import ELK from 'elkjs/lib/elk.bundled.js';

/** The page's one ELK instance: it lays out the machines and a graph run's tasks. */
export const elk = new ELK();
