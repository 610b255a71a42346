#!/usr/bin/env node
/**
 * The `dualloop` command (docs/cli.md). Parses arguments with commander, hands each command to
 * its module under commands/, and exits with the code it returns (DESIGN.md section 8).
 * Command modules are imported when their command runs: `--help` and `validate` do not pay for
 * the model SDK, the store or the terminal libraries.
 */
import { Command, CommanderError, Option } from 'commander';
import { integer, positiveInteger, positiveNumber, webSocketUrl } from './argument-parsers.js';
import { describeError } from '../errors.js';
import { processIO } from './command-io.js';
import type { AuditFlags } from './commands/audit-command.js';
import type { EvalFlags } from './commands/eval-command.js';
import type { ForkFlags } from './commands/fork-command.js';
import type { ResumeFlags } from './commands/resume-command.js';
import type { RunFlags } from './commands/run-command.js';
import type { RunsFlags } from './commands/runs-command.js';
import type { SubmitFlags } from './commands/submit-command.js';
import type { ViewFlags } from './commands/view-command.js';
import { EXIT } from './exit-codes.js';
import { forcedTerminalSize } from './forced-terminal.js';
import { addBoundOptions, EXIT_CODES, hostOption, portOption, queueStoreOption, runStoreOption, storeOption } from './help-texts.js';
import { packageVersion } from './package-version.js';
import { flushTracerProvider } from '../telemetry/flush-tracer-provider.js';
import { redactPostgresUrls } from './postgres-url.js';

/** The command tree; `exitCode()` is the code of the command that ran. */
export function createProgram(): { readonly program: Command; exitCode(): number } {
  const io = processIO();
  let exitCode: number = EXIT.completed;
  const program = new Command('dualloop')
    .description('Run LLM agent workflows inside two bounded state machines; watch them live, resume them, audit why they stopped.')
    .version(packageVersion(), '-v, --version')
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', EXIT_CODES.dualloop);

  addBoundOptions(
    program
      .command('run')
      .description('Run the workflow a manifest describes; live view on a terminal, NDJSON events otherwise')
      .argument('<manifest>', 'the manifest (YAML)')
      .option('--json', 'NDJSON events on stdout even on a terminal')
      .option('--inspect', 'show the run in the Stately inspector: a local page embedding the hosted inspector (needs internet)')
      .option('--inspect-url <url>', 'send the inspection events to this WebSocket receiver instead (implies --inspect)', webSocketUrl)
      .option('--view', 'serve the local run viewer for this run (works offline); it keeps serving after the run until Ctrl-C')
      .addOption(hostOption())
      .addOption(portOption())
      .addOption(runStoreOption())
      .option('--run-id <id>', 'the run id (default: run-<uuid>)'),
  )
    .addHelpText('after', `\nBound options win over the manifest, per-task bounds included.\n${EXIT_CODES.run}`)
    .action(async (manifest: string, flags: Record<string, unknown>) => {
      const { runCommand } = await import('./commands/run-command.js');
      exitCode = await runCommand(
        manifest,
        {
          json: flags['json'] === true,
          inspect: flags['inspect'] === true,
          view: flags['view'] === true,
          ...pick<RunFlags>(flags, { inspectUrl: 'inspectUrl', host: 'host', port: 'port' }),
          ...pick<RunFlags>(flags, { store: 'store', runId: 'runId', maxTurns: 'maxTurns', maxToolCalls: 'maxToolCalls', maxRuntime: 'maxRuntimeMs' }),
          ...pick<RunFlags>(flags, { maxSteps: 'maxWorkflowSteps', maxSessionRuntime: 'maxSessionRuntimeMs', maxTokens: 'maxTokens', maxCost: 'maxCostUsd', maxParallelTasks: 'maxParallelTasks' }),
        },
        io,
      );
    });

  program
    .command('resume')
    .description('Continue a stopped or crashed run from its last checkpoint')
    .argument('<runId>', 'the run to continue')
    .addOption(storeOption())
    .option('--approve <id...>', 'approve parked approvals (tool call id, or task:<taskId>)')
    .option('--reject <id...>', 'reject parked approvals')
    .option('--manifest <path>', 'the manifest to rebuild the run from (default: the one it was started with)')
    .option('--accept-workflow-change', 'go on although the workflow changed since the run started (a deploy changed a tool, the prompt, the model…)')
    .option('--json', 'NDJSON events on stdout even on a terminal')
    .addHelpText('after', EXIT_CODES.resume)
    .action(async (runId: string, flags: Record<string, unknown>) => {
      const { resumeCommand } = await import('./commands/resume-command.js');
      exitCode = await resumeCommand(
        runId,
        { json: flags['json'] === true, acceptWorkflowChange: flags['acceptWorkflowChange'] === true, ...pick<ResumeFlags>(flags, { store: 'store', manifest: 'manifest', approve: 'approve', reject: 'reject' }) },
        io,
      );
    });

  addBoundOptions(
    program
      .command('fork')
      .description('Time travel: start a new run from a point of another run (before a task, or before one of its turns)')
      .usage('<runId> --at <task[:turn]> [options]')
      .argument('<runId>', 'the run to fork (it is not changed)')
      .requiredOption('--at <task[:turn]>', 'required: the point, counted from 1: 3 is before task 3, 3:6 before turn 6 of task 3; a task id names the task (review, review:2)')
      .option('--message <text>', 'a user message the next model call sees')
      .addOption(storeOption())
      .option('--run-id <id>', "the new run's id (default: run-<uuid>)")
      .option('--manifest <path>', 'the manifest to build the run from (default: the one the source was started with)')
      .option('--accept-workflow-change', 'fork although the workflow changed since the source started')
      .option('--json', 'NDJSON events on stdout even on a terminal'),
    ', the task at the point included',
  )
    .addHelpText('after', `\nCounters continue from the point: bounds hold across the fork (docs/time-travel.md).\n${EXIT_CODES.fork}`)
    .action(async (runId: string, flags: Record<string, unknown>) => {
      const { forkCommand } = await import('./commands/fork-command.js');
      exitCode = await forkCommand(
        runId,
        {
          at: String(flags['at']),
          json: flags['json'] === true,
          acceptWorkflowChange: flags['acceptWorkflowChange'] === true,
          ...pick<ForkFlags>(flags, { message: 'message', store: 'store', runId: 'runId', manifest: 'manifest', maxTurns: 'maxTurns', maxToolCalls: 'maxToolCalls', maxRuntime: 'maxRuntimeMs' }),
          ...pick<ForkFlags>(flags, { maxSteps: 'maxWorkflowSteps', maxSessionRuntime: 'maxSessionRuntimeMs', maxTokens: 'maxTokens', maxCost: 'maxCostUsd', maxParallelTasks: 'maxParallelTasks' }),
        },
        io,
      );
    });

  program
    .command('runs')
    .description('List recent runs: id, name, started, stop reason, tasks done')
    .addOption(storeOption())
    .option('--limit <n>', 'how many (default 20)', positiveInteger)
    .option('--json', 'a JSON array of run summaries')
    .addHelpText('after', EXIT_CODES.runs)
    .action(async (flags: Record<string, unknown>) => {
      const { runsCommand } = await import('./commands/runs-command.js');
      exitCode = await runsCommand({ json: flags['json'] === true, ...pick<RunsFlags>(flags, { store: 'store', limit: 'limit' }) }, io);
    });

  program
    .command('audit')
    .description('Explain why a run stopped: the stop tree workflow → tasks → turns, and the policy decisions')
    .argument('<runId>', 'the run to explain')
    .addOption(storeOption())
    .option('--json', 'the AuditReport as JSON')
    .addHelpText('after', EXIT_CODES.audit)
    .action(async (runId: string, flags: Record<string, unknown>) => {
      const { auditCommand } = await import('./commands/audit-command.js');
      exitCode = await auditCommand(runId, { json: flags['json'] === true, ...pick<AuditFlags>(flags, { store: 'store' }) }, io);
    });

  program
    .command('view')
    .description('Serve the local run viewer: both machines, bound gauges, events, stop tree, replay; runs still running are followed live')
    .argument('[runId]', 'the run to open (default: the most recent)')
    .addOption(storeOption())
    .addOption(hostOption())
    .addOption(portOption())
    .option('--control', 'let the page fork runs ("fork from here" on every turn) and answer approvals (editable arguments); loopback only')
    .addHelpText('after', EXIT_CODES.view)
    .action(async (runId: string | undefined, flags: Record<string, unknown>) => {
      const { viewCommand } = await import('./commands/view-command.js');
      exitCode = await viewCommand(runId, { ...pick<ViewFlags>(flags, { store: 'store', host: 'host', port: 'port' }), control: flags['control'] === true }, io);
    });

  program
    .command('eval')
    .description('Replay recorded runs (or task lists) with a candidate model, prompt or bounds, score them against the recording, and gate CI')
    .argument('<suite>', 'the eval suite (YAML): the manifest, the candidate\'s changes, the cases and the scorers')
    .addOption(storeOption())
    .option('--json', 'print the report as JSON on stdout instead of the table')
    .option('--html <path>', 'also write the static HTML report (trajectories side by side) to this file')
    .option('--fail-under <scorer=mean...>', 'exit 1 when a scorer\'s mean score falls below the threshold, e.g. outputEquals=0.9 (repeatable)')
    .option('--concurrency <n>', 'cases run at once (default: the suite\'s, else 1)', positiveInteger)
    .option('--max-cost-usd <usd>', 'one budget for the whole suite: once spent, the cases not started are skipped (default: the suite\'s)', positiveNumber)
    .addHelpText('after', EXIT_CODES.eval)
    .action(async (suite: string, flags: Record<string, unknown>) => {
      const { evalCommand } = await import('./commands/eval-command.js');
      exitCode = await evalCommand(suite, { json: flags['json'] === true, ...pick<EvalFlags>(flags, { store: 'store', html: 'html', failUnder: 'failUnder', concurrency: 'concurrency', maxCostUsd: 'maxCostUsd' }) }, io);
    });

  program
    .command('cancel')
    .description('Cancel a run from any process: the process running it stops it context_canceled within a second')
    .argument('<runId>', 'the run to cancel')
    .addOption(storeOption())
    .option('--reason <text>', 'why, kept in the stop detail')
    .addHelpText('after', EXIT_CODES.control)
    .action(async (runId: string, flags: Record<string, unknown>) => {
      const { controlCommand } = await import('./commands/control-command.js');
      exitCode = await controlCommand(runId, { kind: 'cancel', ...pick<{ reason: string }>(flags, { reason: 'reason' }) }, pick(flags, { store: 'store' }), io);
    });

  program
    .command('steer')
    .description('Queue a steering message for a run from any process, as steer() does in-process')
    .argument('<runId>', 'the run to steer')
    .argument('<message>', 'the message')
    .option('--task <id>', 'deliver it to this task only (a graph runs several at once); default: every task running when it arrives')
    .addOption(storeOption())
    .addHelpText('after', EXIT_CODES.control)
    .action(async (runId: string, message: string, flags: Record<string, unknown>) => {
      const { controlCommand } = await import('./commands/control-command.js');
      exitCode = await controlCommand(runId, { kind: 'steer', message, ...pick<{ taskId: string }>(flags, { task: 'taskId' }) }, pick(flags, { store: 'store' }), io);
    });

  program
    .command('approve')
    .description('Answer a parked approval of a run from any process; the answer applies on the next resume')
    .usage('<runId> (--allow | --deny) [options]')
    .argument('<runId>', 'the parked run')
    .option('--call <id>', 'the approval (tool call id, or task:<taskId>); optional when exactly one is pending')
    .addOption(new Option('--allow', 'allow the call (--allow or --deny is required)').conflicts('deny'))
    .addOption(new Option('--deny', 'deny the call (--allow or --deny is required)').conflicts('allow'))
    .option('--args <json>', 'with --allow: the arguments the call runs with instead of the model\'s (JSON, checked against the tool)')
    .option('--message <text>', 'with --deny: what the model is told, as the tool\'s error result')
    .option('--manifest <path>', 'the manifest whose tools check --args (default: the one the run was started with)')
    .option('--reason <text>', 'why')
    .addOption(storeOption())
    .addHelpText('after', EXIT_CODES.control)
    .action(async (runId: string, flags: Record<string, unknown>) => {
      if (flags['allow'] !== true && flags['deny'] !== true) {
        io.stderr.write('dualloop: approve needs --allow or --deny\n');
        exitCode = EXIT.usage;
        return;
      }
      const { controlCommand } = await import('./commands/control-command.js');
      const request = { kind: 'approve' as const, allow: flags['allow'] === true, ...pick<{ callId: string; reason: string; args: string; message: string }>(flags, { call: 'callId', reason: 'reason', args: 'args', message: 'message' }) };
      exitCode = await controlCommand(runId, request, pick(flags, { store: 'store', manifest: 'manifest' }), io);
    });

  program
    .command('init')
    .description('Write a starter workflow (manifest, recorded model, tools module) that runs offline at once')
    .argument('[dir]', 'where to write it (default: the current directory; created when missing)')
    .option('--force', 'overwrite the starter files if they exist')
    .addHelpText('after', EXIT_CODES.init)
    .action(async (dir: string | undefined, flags: Record<string, unknown>) => {
      const { initCommand } = await import('./commands/init-command.js');
      exitCode = await initCommand(dir, { force: flags['force'] === true }, io);
    });

  program
    .command('submit')
    .description('Queue a run of a manifest for `dualloop worker` processes (its workflow is the file name); prints the run id')
    .usage('<manifest> --store <url> [options]')
    .argument('<manifest>', 'the manifest (YAML)')
    .addOption(queueStoreOption())
    .option('--run-id <id>', 'the run id (default: run-<uuid>); a run id already queued runs once')
    .option('--priority <n>', 'queue priority: higher is taken first', integer)
    .option('--wait', 'follow the run until it ends and exit as `run` does')
    .option('--json', 'NDJSON on stdout')
    .addHelpText('after', EXIT_CODES.submit)
    .action(async (manifest: string, flags: Record<string, unknown>) => {
      const { submitCommand } = await import('./commands/submit-command.js');
      exitCode = await submitCommand(manifest, { wait: flags['wait'] === true, json: flags['json'] === true, ...pick<SubmitFlags>(flags, { store: 'store', runId: 'runId', priority: 'priority' }) }, io);
    });

  program
    .command('worker')
    .description('Execute queued runs of these manifests, slice by slice, until SIGTERM or Ctrl-C (which drains and exits 0)')
    .usage('<manifest...> --store <url> [options]')
    .argument('<manifest...>', 'the manifests (YAML) whose runs this worker takes')
    .addOption(queueStoreOption())
    .option('--concurrency <n>', 'slices run at once, per workflow (default 1)', positiveInteger)
    .option('--worker-id <id>', 'the name in slice lines (default <host>/pid-<pid>)')
    .option('--json', 'one JSON line per slice')
    .addHelpText('after', EXIT_CODES.worker)
    .action(async (manifests: string[], flags: Record<string, unknown>) => {
      const { workerCommand } = await import('./commands/worker-command.js');
      exitCode = await workerCommand(manifests, { json: flags['json'] === true, ...pick<{ store: string; concurrency: number; workerId: string }>(flags, { store: 'store', concurrency: 'concurrency', workerId: 'workerId' }) }, io);
    });

  program
    .command('validate')
    .description('Check a manifest without running it; every problem is listed with its YAML path and line')
    .argument('<manifest>', 'the manifest (YAML)')
    .addHelpText('after', EXIT_CODES.validate)
    .action(async (manifest: string) => {
      const { validateCommand } = await import('./commands/validate-command.js');
      exitCode = await validateCommand(manifest, io);
    });

  return { program, exitCode: () => exitCode };
}

/** Copies the defined flags, renamed: commander's camelCase names to the commands' field names. */
function pick<T extends object>(flags: Record<string, unknown>, names: Readonly<Record<string, keyof T & string>>): Partial<T> {
  return Object.fromEntries(Object.entries(names).flatMap(([from, to]) => (flags[from] === undefined ? [] : [[to, flags[from]]]))) as Partial<T>;
}

async function main(argv: readonly string[]): Promise<number> {
  const terminal = forcedTerminalSize();
  if (typeof terminal === 'string') {
    process.stderr.write(`dualloop: ${terminal}\n`);
    return EXIT.usage;
  }
  try {
    const { program, exitCode } = createProgram();
    await program.parseAsync(argv as string[]);
    return exitCode();
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version exit 0; every parse error, and a bare `dualloop`, is a usage error.
      return error.exitCode === 0 ? EXIT.completed : EXIT.usage;
    }
    // Errors with a stable code (StoreError, RunError) explain themselves; anything else is a bug: show the stack.
    const known = error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
    const message = known ? describeError(error) : `unexpected failure: ${error instanceof Error ? (error.stack ?? describeError(error)) : describeError(error)}`;
    process.stderr.write(`dualloop: ${redactPostgresUrls(message)}\n`);
    return EXIT.error;
  }
}

const code = await main(process.argv);
// Spans a batching processor of the user's tracer provider still holds reach its exporter first (bounded).
const unflushed = await flushTracerProvider();
if (unflushed !== undefined) process.stderr.write(`dualloop: warning: ${unflushed}\n`);
// Exit explicitly: an open keep-alive socket of a model client must not hold the process.
process.stdout.write('', () => process.exit(code));
