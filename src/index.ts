// The public API of dualloop. Named exports only; DESIGN.md section 3 is the contract.
export { runWorkflow } from './kernel/run-workflow.js';
export { createKernel } from './kernel/create-kernel.js';
export type { Kernel, ResumeOptions, StartOptions } from './kernel/create-kernel.js';
export type { MessageOptions, WorkflowRun } from './kernel/workflow-run.js';
export type { KernelOptions } from './kernel/options.js';
export type { InspectObserver, KernelLogger } from './events/observers.js';
export type { ToolExecution } from './tools/tool-port.js';
export type { TelemetryOptions, TelemetryTracer } from './telemetry/telemetry-options.js';
export { StrategyName } from './strategies/strategy.js';
export type { AutoRules } from './strategies/auto-rules.js';
export type { TaskInput } from './kernel/tasks.js';
export { systemClock } from './contracts/clock.js';
export type { Clock } from './contracts/clock.js';

export { openaiModel, PRICING_AS_OF, type OpenAIModelOptions, type ModelPricing, type OpenAIFailureCode } from './providers/openai-model.js';
export { aiSdkModel, type AiSdkLanguageModel, type AiSdkModelOptions, type AiSdkFailureCode } from './providers/ai-sdk-model.js';
export { withRateLimit } from './providers/with-rate-limit.js';

export { defineTool } from './tools/define-tool.js';
export { agentTool, type AgentToolSpec } from './delegation/agent-tool.js';
export type { Guardrail, GuardrailContext, GuardrailMode, GuardrailStage, GuardrailTrip, GuardrailVerdict } from './contracts/guardrails.js';
export type { ChildRunOptions, DelegatedRun } from './contracts/delegation.js';
export type { EvalOrigin, RunParent } from './contracts/store.js';
export { mcpTools, type McpHttpServer, type McpServerConfig, type McpStdioServer, type McpToolSource, type McpToolset, type McpToolsOptions } from './mcp/mcp-tools.js';
export { calculatorTool } from './tools/builtin/calculator.js';
export { currentTimeTool } from './tools/builtin/current-time.js';
export { listFilesTool, readFileTool, type FileToolOptions } from './tools/builtin/file-tools.js';
export { declarativeGuardrail, type DeclarativeGuardrailSpec } from './guardrails/declarative-guardrails.js';
export { declarativePolicy, type DeclarativePolicySpec } from './policy/declarative-policy.js';
export { terminate } from './contracts/tool.js';
export type { OpenedToolSource, Tool, ToolCallPlace, ToolDefinition, ToolExecutionContext, ToolExecutionMode, ToolResult, ToolSource, ToolSourceContext } from './contracts/tool.js';

export { memoryStore } from './checkpoint/memory-store.js';
export type { MemoryStore, MemoryStoreOptions } from './checkpoint/memory-store.js';
export type { SynchronousStore } from './checkpoint/synchronous-store.js';
export { sqliteStore } from './checkpoint/sqlite/sqlite-store.js';
export type { SqliteStore, SqliteStoreOptions } from './checkpoint/sqlite/sqlite-store.js';
export { postgresStore } from './checkpoint/postgres/postgres-store.js';
export { approveRun, cancelRun, steerRun } from './control/run-control.js';
export type { ApproveOptions, ControlRedaction, SteerOptions } from './control/run-control.js';
export type { ControlChannel, ControlCommand } from './contracts/control.js';
export type { PostgresConnection, PostgresPool, PostgresStore, PostgresStoreOptions } from './checkpoint/postgres/postgres-store.js';
export { submitRun, type SubmittedRun } from './workers/submit-run.js';
export { createWorker, type StopOptions as WorkerStopOptions, type Worker } from './workers/create-worker.js';
export type { SliceReport, SubmitRunOptions, WorkerOptions, WorkflowBuilder, WorkflowRunInfo } from './workers/worker-settings.js';
export { keepRecentTurns } from './compaction/keep-recent-turns.js';
export type { KeepRecentTurnsOptions } from './compaction/keep-recent-turns.js';

export { DEFAULT_BOUNDS } from './contracts/bounds.js';
export type { Bounds, BoundsOverride, InnerBounds, OuterBounds } from './contracts/bounds.js';
export { StopReason, isNaturalCompletion, stopPriority } from './contracts/stop.js';
export type { ErrorStop, OutcomeStop, StopBound, StopCandidate, StopCondition } from './contracts/stop.js';
export type { CompactionOutcome, ErrorScope, OutputInvalidOutcome, KernelEvent, KernelEventBody, KernelEventType, PlanStepView, PlanStrategyName, TaskCounters } from './contracts/events.js';
export type { TaskResult, TurnResult, TurnToolCall, WorkflowMetrics, WorkflowResult, WrapUpResult } from './contracts/results.js';
export { taskOutput } from './contracts/task-outputs.js';
export type { OutputsOf, TaskOutputs } from './contracts/task-outputs.js';
export type { OutputIssue } from './contracts/typed-output.js';
export type { AssistantMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage } from './contracts/messages.js';
export type { FinishReason, Model, ModelFailure, ModelRequest, ModelResponse, ModelResult, RateLimit, ResponseFormat, ToolDescriptor } from './contracts/model.js';
export type { Usage } from './contracts/usage.js';
export type { ApprovalAnswer, ApprovalAnswerObject, PolicyGate, PolicyVerdict, TaskPolicyRequest, ToolPolicyRequest } from './contracts/policy.js';
export type {
  AfterToolCall,
  BeforeToolCall,
  BeforeToolCallResult,
  Compactor,
  EphemeralMessages,
  InnerStopEvaluator,
  InnerStopView,
  OuterStopEvaluator,
  OuterStopView,
  ShouldStopAfterTurn,
  StopVerdict,
  ToolInvocation,
  ToolOutcome,
  TransformContext,
} from './contracts/hooks.js';
export type { CheckpointStore, LeaseOptions, LeaseResult, MaybePromise, RunRecord, RunSummary } from './contracts/store.js';
export type { ForkEdit, ForkOptions, ForkOrigin, ForkPoint } from './contracts/fork.js';
export { CHECKPOINT_VERSION } from './contracts/checkpoint.js';
export type {
  ActiveChange,
  CheckpointChange,
  CheckpointEntry,
  CheckpointIndexEntry,
  CheckpointKind,
  CheckpointSnapshot,
  CheckpointView,
  StoredCheckpoints,
  TranscriptPiece,
} from './contracts/checkpoint.js';
export { readCheckpoint } from './checkpoint/read-checkpoint.js';
export type { ActiveTask, WorkflowProgress } from './contracts/workflow-protocol.js';
export type { JsonSchema, RepeatState, TaskResumePoint, TaskSpec, TurnProgress } from './contracts/turn-protocol.js';
export type { AuditActiveTask, AuditChild, AuditCompaction, AuditOutputInvalid, AuditPolicyDecision, AuditReport, AuditTask, AuditToolCall, AuditTurn, AuditWrapUp } from './contracts/audit.js';
export type { DeliveryMode } from './contracts/queues.js';
export { ConfigError, DualloopError, EngineError, FailureError, McpError, RunError, StoreError, WorkerError, isDualloopError } from './errors.js';
export type { ErrorFamily, ErrorOfCode } from './errors.js';
export { ConfigErrorCode, EngineErrorCode, ErrorCode, FailureCode, McpErrorCode, RunErrorCode, StoreErrorCode, WorkerErrorCode } from './contracts/error-codes.js';
export { createEngine } from './engine/create-engine.js';
export { loopEngine, type LoopEngineOptions } from './engine/loop-engine.js';
export { ENGINE_EVENT_TYPES } from './engine/types.js';
export type { EngineAdapter, EngineEvent, EngineEventType, EngineInput, EngineMetrics, EngineOutput, EngineState } from './engine/types.js';
export type { ConfigIssue } from './errors.js';
// The viewer's server and the inspector bridge are at `dualloop/viewer` and `dualloop/inspect` (ADR 0122).
export { costWithin, judge, outputEquals, outputMatchesSchema, stopReasonMatches, toolTrajectoryMatches, turnsWithin, type JudgeScorerOptions } from './evals/index.js';
export * as scorers from './evals/index.js';
export { evalReportHtml, type EvalHtmlOptions } from './evals/eval-html.js';
export type { EvalCase, EvalCaseReport, EvalReport, EvalRun, EvalScore, EvalScorer, EvalSide, EvalToolMode, EvaluateOptions, ScoreVerdict, TrajectoryTurn } from './contracts/evals.js';
