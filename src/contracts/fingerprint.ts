/**
 * What shapes a run's behaviour, item by item (DESIGN §15, docs/operations.md): kept with the run,
 * compared when a resume, a fork or a worker takes it up after a deploy, so that a changed
 * workflow is named and continued only on purpose. Functions (tool code, hooks, a policy function)
 * cannot be compared: a tool's `version` says its author vouches for a change under the same one.
 * Long texts are kept as SHA-256 hashes, never as they are (a system prompt may hold secrets).
 */

/** A tool as the fingerprint keeps it. */
export interface ToolPrint {
  /** SHA-256 of the description the model sees. */
  readonly description: string;
  /** SHA-256 of the parameters' JSON Schema, and its top-level property names and required ones (to say what changed). */
  readonly schema: string;
  readonly properties: readonly string[];
  readonly required: readonly string[];
  readonly version?: string;
}

export interface WorkflowFingerprint {
  /** `provider/modelId` of the model (and of the planner when it is another). */
  readonly model: string;
  readonly planner?: string;
  /** SHA-256 of the system prompt; `null` without one. */
  readonly system: string | null;
  /** By name; a tool source (MCP) by `source:<name>`, its tools being known only once opened. */
  readonly tools: Readonly<Record<string, ToolPrint>>;
  /** Every resolved bound, by `inner.<name>` / `outer.<name>`. */
  readonly bounds: Readonly<Record<string, number>>;
  readonly strategy: string;
  /** What can be compared of the policy: which checks it has (functions), or a declarative spec's hash. */
  readonly policy: string;
  /** Each guardrail's name, where it checks and its mode. */
  readonly guardrails: readonly string[];
  /** SHA-256 of the configured task list (`tasks` option; a run's own tasks are in its record); `null` without one. */
  readonly tasks: string | null;
  /** What the caller adds, by name: a manifest's tools module and cassette hashes (`fingerprint` option). */
  readonly extra: Readonly<Record<string, string>>;
}
