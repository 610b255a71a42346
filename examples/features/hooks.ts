/**
 * Tool hooks (docs/hooks.md): `beforeToolCall` blocks a dangerous call and rewrites arguments;
 * `afterToolCall` replaces a result before the model sees it.
 * Run: `npm run build && node dist/examples/features/hooks.js`
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createKernel, defineTool, type AfterToolCall, type BeforeToolCall } from '../../src/index.js';
import { collectRun, scriptedModel } from '../../src/testing/index.js';

export async function main(log: (line: string) => void = console.log): Promise<void> {
  const shell = defineTool({
    name: 'shell',
    description: 'Runs a shell command (simulated).',
    parameters: z.object({ command: z.string() }),
    execute: ({ command }) => (command.includes('cat ') ? 'user=admin password=hunter2' : `ran: ${command}`),
  });

  const beforeToolCall: BeforeToolCall = ({ name, args }) => {
    const { command } = args as { command: string };
    if (command.includes('rm -rf')) return { block: 'destructive commands are not allowed' };
    if (name === 'shell' && !command.startsWith('timeout ')) return { args: { command: `timeout 10 ${command}` } };
    return undefined;
  };
  const afterToolCall: AfterToolCall = (_invocation, outcome) =>
    typeof outcome.result === 'string' && outcome.result.includes('password=') ? { result: outcome.result.replace(/password=\S+/, 'password=[hidden]') } : undefined;

  const model = scriptedModel([
    {
      toolCalls: [
        { name: 'shell', args: { command: 'rm -rf /' } },
        { name: 'shell', args: { command: 'ls' } },
        { name: 'shell', args: { command: 'cat config' } },
      ],
    },
    { text: 'Listed the files and read the config.' },
  ]);
  const { result } = await collectRun(createKernel({ model, tools: [shell], beforeToolCall, afterToolCall }).start(['Inspect the server.']));

  // What the model was shown on its second call: one tool message per call.
  for (const message of model.calls[1]!.messages) {
    if (message.role === 'tool') log(`model saw: ${message.content}`);
  }
  log(`task: ${result.tasks[0]!.stop.reason}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
