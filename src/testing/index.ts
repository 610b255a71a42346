export { scriptedModel } from './scripted-model.js';
export type { RecordedCall, Script, ScriptCall, ScriptedModel, ScriptStep } from './scripted-model.js';
export { collectRun, manualClock, recordingLogger } from './fakes.js';
export type { ManualClock, RecordedLine } from './fakes.js';
export { expectStop, recordRun } from './record-run.js';
export type { ExpectedStop, RecordedToolCall, RunRecording } from './record-run.js';
// The in-memory store, for tests that resume, audit or read back a run without a file or a database.
export { memoryStore } from '../checkpoint/memory-store.js';
export type { MemoryStore, MemoryStoreOptions } from '../checkpoint/memory-store.js';
