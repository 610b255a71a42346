export { scriptedModel } from './scripted-model.js';
export type { RecordedCall, Script, ScriptCall, ScriptedModel, ScriptStep } from './scripted-model.js';
export { collectRun, manualClock, recordingLogger } from './fakes.js';
export type { ManualClock, RecordedLine } from './fakes.js';
