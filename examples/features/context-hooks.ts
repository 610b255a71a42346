/**
 * Context hooks (docs/context-hooks.md): `transformContext` prunes what the model sees,
 * `ephemeralMessages` adds a one-call note, `shouldStopAfterTurn` ends the task on a goal, and a
 * tool ends it by returning `terminate(value)`.
 * Run: `npm run build && node dist/examples/features/context-hooks.js`
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createKernel, defineTool, terminate, type Message, type ShouldStopAfterTurn, type TransformContext } from '../../src/index.js';
import { collectRun, scriptedModel } from '../../src/testing/index.js';

export async function main(log: (line: string) => void = console.log): Promise<void> {
  const read = defineTool({ name: 'read', description: 'Reads a file.', parameters: z.object({ path: z.string() }), execute: ({ path }) => `${path}: ${'x'.repeat(500)}` });
  const submit = defineTool({ name: 'submit', description: 'Submits the answer and ends the task.', parameters: z.object({ answer: z.string() }), execute: ({ answer }) => terminate(answer) });

  // Keep only the latest tool output in full; older ones are shortened in what the model sees.
  const transformContext: TransformContext = (messages) => {
    const lastTool = messages.findLastIndex((message) => message.role === 'tool');
    return messages.map((message, index): Message => (message.role === 'tool' && index < lastTool ? { ...message, content: `${message.content.slice(0, 20)}…` } : message));
  };
  const ephemeralMessages = ({ turn }: { turn: number }): Message[] => [{ role: 'user', content: `(turn ${turn}; be concise)`, source: 'ephemeral' }];

  // 1. terminate(): the model reads two files and submits; the task ends without another call.
  const model = scriptedModel([
    { toolCalls: [{ name: 'read', args: { path: 'a.txt' } }] },
    { toolCalls: [{ name: 'read', args: { path: 'b.txt' } }] },
    { toolCalls: [{ name: 'submit', args: { answer: 'a and b agree' } }] },
  ]);
  const { result } = await collectRun(createKernel({ model, tools: [read, submit], transformContext, ephemeralMessages }).start(['Compare a.txt and b.txt.']));
  const seen = model.calls[2]!.messages;
  log(`third call sees ${seen.length} messages; tool outputs: ${seen.filter((message) => message.role === 'tool').map((message) => message.content.length).join(', ')} characters`);
  log(`third call ends with: ${seen.at(-1)!.content}`);
  log(`task: ${result.tasks[0]!.stop.reason} with ${model.calls.length} model calls; stored transcript has no ephemeral note: ${!JSON.stringify(result).includes('be concise')}`);

  // 2. shouldStopAfterTurn(): stop as soon as a turn's tool result contains the goal.
  const shouldStopAfterTurn: ShouldStopAfterTurn = (turn) => turn.toolCalls.some((call) => String(call.result).startsWith('b.txt'));
  const second = scriptedModel(({ index }) => ({ toolCalls: [{ name: 'read', args: { path: index === 0 ? 'a.txt' : 'b.txt' } }] }));
  const stopped = await collectRun(createKernel({ model: second, tools: [read], shouldStopAfterTurn }).start(['Find b.txt.']));
  log(`shouldStopAfterTurn: ${stopped.result.tasks[0]!.stop.reason} after ${stopped.result.tasks[0]!.turnCount} turns`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
