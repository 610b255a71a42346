import type { ToolDescriptor } from '../contracts/model.js';
import type { OpenedToolSource, Tool, ToolSource } from '../contracts/tool.js';
import { describeError } from '../errors.js';
import { toolDefinitionIssues } from './define-tool.js';

/** Tools by name, and what the model is shown of them. */
export interface ToolCatalog {
  readonly byName: ReadonlyMap<string, Tool>;
  readonly descriptors: readonly ToolDescriptor[];
}

export function toolCatalog(tools: Iterable<Tool>): ToolCatalog {
  const byName = new Map<string, Tool>();
  for (const tool of tools) byName.set(tool.name, tool);
  return { byName, descriptors: [...byName.values()].map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.jsonSchema })) };
}

/** What a run's model caller, planner and tool runner ask of its tools (`RunTools`). */
export interface RunToolCatalog {
  /** The catalog, when nothing is left to open (no source, or opened): callers skip the await. */
  readonly ready: ToolCatalog | undefined;
  /** Opens the run's tool sources at its first need; rejects naming each that failed. */
  open(): Promise<ToolCatalog>;
}

/**
 * A run's tools: the kernel's own, plus those of its tool sources (ADR/0143). The sources are
 * opened at the run's first need — the model caller, the planner or the tool runner asks before
 * it needs the list — once for the whole run, and closed by `close()` when the run ends. An open
 * that failed is tried again at the next need (a later task, with `onTaskStop: continue`).
 */
export class RunTools implements RunToolCatalog {
  private catalog: ToolCatalog | undefined;
  private opening: Promise<ToolCatalog> | undefined;
  private opened: OpenedToolSource[] = [];
  private closed = false;

  constructor(
    private readonly own: ToolCatalog,
    private readonly sources: readonly ToolSource[],
    private readonly runId: string,
    /** Aborts when the run ends: an open in progress gives up. */
    private readonly signal: AbortSignal,
  ) {
    if (sources.length === 0) this.catalog = own;
  }

  /** The catalog, when nothing is left to open (no source, or opened): callers skip the await. */
  get ready(): ToolCatalog | undefined {
    return this.catalog;
  }

  /** Opens every source (in parallel); rejects with an Error naming each that failed. */
  open(): Promise<ToolCatalog> {
    if (this.catalog !== undefined) return Promise.resolve(this.catalog);
    if (this.closed) return Promise.reject(new Error('the run has ended: its tool sources are closed'));
    if (this.opening === undefined) {
      const opening = this.openSources();
      this.opening = opening;
      opening.catch(() => {
        if (this.opening === opening) this.opening = undefined;
      });
    }
    return this.opening;
  }

  /** Closes what was opened, once; later needs fail. Never rejects. */
  async close(): Promise<void> {
    this.closed = true;
    const inFlight = this.opening;
    // An open in progress sees the run's signal abort and settles; what it opened is closed below.
    if (inFlight !== undefined) await inFlight.catch(() => undefined);
    const opened = this.opened;
    this.opened = [];
    await Promise.all(opened.map((source) => source.close().catch(() => undefined)));
  }

  private async openSources(): Promise<ToolCatalog> {
    const outcomes = await Promise.allSettled(this.sources.map((source) => source.open({ runId: this.runId, signal: this.signal })));
    const opened = outcomes.flatMap((outcome, index) => (outcome.status === 'fulfilled' ? [{ name: this.sources[index]!.name, source: outcome.value }] : []));
    const problems = outcomes.flatMap((outcome, index) => (outcome.status === 'rejected' ? [`tool source "${this.sources[index]!.name}" did not open: ${describeError(outcome.reason)}`] : []));
    const tools = [...this.own.byName.values()];
    const names = new Set(this.own.byName.keys());
    for (const { name, source } of opened) {
      for (const tool of source.tools) {
        const issues = toolDefinitionIssues(tool, 'tool');
        if (issues.length === 0 && typeof tool.jsonSchema !== 'object') issues.push({ path: 'tool.jsonSchema', message: 'must be a JSON Schema object' });
        if (issues.length > 0) problems.push(`tool source "${name}" gave an invalid tool: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`);
        else if (names.has(tool.name)) problems.push(`tool source "${name}" gave a tool named "${tool.name}", which the run already has`);
        else {
          names.add(tool.name);
          tools.push(tool);
        }
      }
    }
    if (problems.length > 0 || this.closed) {
      await Promise.all(opened.map(({ source }) => source.close().catch(() => undefined)));
      throw new Error(problems.length > 0 ? problems.join('; ') : 'the run ended while its tool sources were opening');
    }
    this.opened = opened.map(({ source }) => source);
    this.catalog = toolCatalog(tools);
    return this.catalog;
  }
}
