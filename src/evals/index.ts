/** The built-in scorers, by the names suites use (docs/evals.md, "Scorers"). */
export { costWithin, outputEquals, outputMatchesSchema, stopReasonMatches, toolTrajectoryMatches, turnsWithin } from './scorers.js';
export { judge, type JudgeScorerOptions } from './judge-scorer.js';
