import { createEngine, loopEngine } from 'dualloop';
import { describeEngineContract } from './contract.js';

describeEngineContract('dualloop (XState kernel)', ({ model, tools, maxTurns, system }) =>
  createEngine({ model, tools, ...(system === undefined ? {} : { system }), ...(maxTurns === undefined ? {} : { bounds: { inner: { maxTurns } } }) }),
);

describeEngineContract('loop (plain while loop)', (setup) => loopEngine(setup));
