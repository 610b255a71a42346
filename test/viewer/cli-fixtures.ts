import { fileURLToPath } from 'node:url';
import type { Workspace } from '../cli/workspace.js';

const SLOW_TOOLS = fileURLToPath(new URL('./fixtures/slow-tools.mjs', import.meta.url));

/**
 * A two-task manifest whose first task computes (turn 1), then waits in `wait_for_file` (turn 2)
 * until `release` exists, then answers (turn 3); the second task answers at once.
 */
export function slowManifest(workspace: Workspace): { readonly manifest: string; readonly release: string } {
  const release = workspace.path('release');
  workspace.write('cassette.yaml', [
    { toolCalls: [{ name: 'calculator', args: { expression: '6 * 7' } }], usage: { inputTokens: 100, outputTokens: 20 } },
    { toolCalls: [{ name: 'wait_for_file', args: { path: release } }], usage: { inputTokens: 150, outputTokens: 25 } },
    { text: 'The answer is 42.', usage: { inputTokens: 200, outputTokens: 10 } },
    { text: 'Reported.', usage: { inputTokens: 50, outputTokens: 5 } },
  ]);
  const manifest = workspace.write('manifest.yaml', {
    name: 'slow-answer',
    model: { provider: 'scripted', script: './cassette.yaml' },
    tools: { builtin: ['calculator'], module: SLOW_TOOLS },
    bounds: { inner: { maxTurns: 5, maxToolCalls: 8 }, outer: { maxTokens: 10_000 } },
    tasks: [
      { id: 'compute', description: 'Compute the answer.' },
      { id: 'report', description: 'Report it.' },
    ],
  });
  return { manifest, release };
}

/** Resolves with the first match of `pattern` in the child's stderr. */
export function waitForStderr(child: { stderr: NodeJS.ReadableStream; on(event: 'close', listener: () => void): unknown }, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer | string) => {
      text += String(chunk);
      const match = pattern.exec(text);
      if (match !== null) {
        child.stderr.off('data', onData);
        resolve(match);
      }
    };
    child.stderr.on('data', onData);
    child.on('close', () => reject(new Error(`the process ended before printing ${pattern}; stderr:\n${text}`)));
  });
}
