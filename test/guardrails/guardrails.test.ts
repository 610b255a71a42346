/**
 * Guardrails in each of their four places, through the public API and the scripted model: a trip
 * ends the task `guardrail_tripped` naming the guardrail (stop, task_end, event), a `revise` one
 * lets the model try again within `maxOutputRepairs`, and a faulty check fails closed.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentTool, createKernel, declarativeGuardrail, defineTool, type Guardrail, type KernelEvent, type KernelOptions } from 'dualloop';
import { scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';

const lastIsTool = (call: ScriptCall) => call.messages.at(-1)?.role === 'tool';
const lastText = (call: ScriptCall) => String(call.messages.at(-1)?.content ?? '');

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a customer up.',
  parameters: z.object({ email: z.string() }),
  execute: ({ email }) => ({ email, card: '4111 1111 1111 1111' }),
});

async function runAll(options: KernelOptions, tasks: Parameters<ReturnType<typeof createKernel>['start']>[0] = ['Summarize the account']) {
  const run = createKernel(options).start(tasks);
  const events: KernelEvent[] = [];
  for await (const event of run) events.push(event);
  return { result: await run.result, events };
}

const calledWith = (calls: string[]) => (call: ScriptCall) => calls.push(lastText(call));

describe('guardrails: a trip ends the task guardrail_tripped, naming the guardrail', () => {
  it('input: the description is refused before the model is called', async () => {
    const seen: string[] = [];
    const model = scriptedModel((call): ScriptStep => (calledWith(seen)(call), { text: 'done' }));
    const noSecrets: Guardrail = { name: 'no-passwords', on: 'input', check: (value) => ({ tripped: String(value).includes('password'), reason: 'asks for a password' }) };
    const { result, events } = await runAll({ model, guardrails: [noSecrets] }, ['Tell me the admin password']);
    expect(result.stop.reason).toBe('guardrail_tripped');
    const stop = result.tasks[0]!.stop;
    expect(stop).toMatchObject({ reason: 'guardrail_tripped', guardrail: { name: 'no-passwords', on: 'input', reason: 'asks for a password' } });
    expect(stop.detail).toBe('guardrail "no-passwords" (input) tripped: asks for a password');
    expect(seen).toEqual([]);
    expect(events.some((event) => event.type === 'message_start')).toBe(false);
    expect(events.find((event) => event.type === 'guardrail_tripped')).toMatchObject({ name: 'no-passwords', on: 'input', mode: 'stop', taskId: 'task-1', turn: 1 });
    expect(events.find((event) => event.type === 'task_end')).toMatchObject({ stop: { reason: 'guardrail_tripped' } });
    expect(result.tasks[0]!.output).toBe('');
  });

  it('input: a description that passes reaches the model', async () => {
    const model = scriptedModel(() => ({ text: 'summary' }));
    const noSecrets: Guardrail = { name: 'no-passwords', on: 'input', check: (value) => ({ tripped: String(value).includes('password') }) };
    const { result } = await runAll({ model, guardrails: [noSecrets] });
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks[0]!.output).toBe('summary');
  });

  it('output stop: the final answer is withheld and the task stops', async () => {
    const model = scriptedModel(() => ({ text: 'the card is 4111 1111 1111 1111' }));
    const noCards: Guardrail = { name: 'no-card-numbers', on: 'output', check: (value) => ({ tripped: /\d{4} \d{4} \d{4} \d{4}/.test(String(value)), reason: 'a card number' }) };
    const { result } = await runAll({ model, guardrails: [noCards] });
    expect(result.stop.reason).toBe('guardrail_tripped');
    expect(result.tasks[0]!.stop.guardrail).toEqual({ name: 'no-card-numbers', on: 'output', reason: 'a card number' });
    expect(result.tasks[0]!.output).toBe('');
    // The turn keeps what the model said, for the audit.
    expect(result.tasks[0]!.turns[0]!.assistantText).toContain('4111');
  });

  it('output revise: the reason goes back to the model, which tries again within maxOutputRepairs', async () => {
    const seen: string[] = [];
    let answers = 0;
    const model = scriptedModel((call): ScriptStep => {
      seen.push(lastText(call));
      answers += 1;
      return { text: answers === 1 ? 'TOO LOUD' : 'quiet now' };
    });
    const quiet: Guardrail = { name: 'no-shouting', on: 'output', mode: 'revise', check: (value) => ({ tripped: String(value) === String(value).toUpperCase(), reason: 'all capitals' }) };
    const { result, events } = await runAll({ model, guardrails: [quiet] });
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks[0]!.output).toBe('quiet now');
    expect(result.tasks[0]!.turnCount).toBe(2);
    expect(seen[1]).toContain('refused by the guardrail "no-shouting" (revision 1 of 2): all capitals');
    expect(events.filter((event) => event.type === 'guardrail_tripped')).toHaveLength(1);
  });

  it('output revise: once the revisions are used up, the task stops guardrail_tripped', async () => {
    const model = scriptedModel(() => ({ text: 'STILL LOUD' }));
    const quiet: Guardrail = { name: 'no-shouting', on: 'output', mode: 'revise', check: (value) => ({ tripped: String(value) === String(value).toUpperCase(), reason: 'all capitals' }) };
    const { result, events } = await runAll({ model, guardrails: [quiet], bounds: { inner: { maxOutputRepairs: 1 } } });
    expect(result.tasks[0]!.stop).toMatchObject({ reason: 'guardrail_tripped', guardrail: { name: 'no-shouting', on: 'output' } });
    expect(result.tasks[0]!.turnCount).toBe(2);
    expect(events.filter((event) => event.type === 'guardrail_tripped')).toHaveLength(2);
  });

  it('output on a typed task: checked once the answer matched the schema, with the parsed value in the context', async () => {
    const parsed: unknown[] = [];
    const model = scriptedModel(() => ({ text: '{"total": -5}' }));
    const positive: Guardrail = {
      name: 'positive-total',
      on: 'output',
      check: (_value, context) => (parsed.push(context.output), { tripped: (context.output as { total: number }).total < 0, reason: 'a negative total' }),
    };
    const { result } = await runAll({ model, guardrails: [positive] }, [{ description: 'Add it up', output: z.object({ total: z.number() }) }]);
    expect(parsed).toEqual([{ total: -5 }]);
    expect(result.tasks[0]!.stop.reason).toBe('guardrail_tripped');
    expect(result.tasks[0]!.output).toBeUndefined();
  });

  it('tool_call: the arguments are refused before the policy gate, and the tool does not run', async () => {
    let executed = 0;
    let gated = 0;
    const send = defineTool({ name: 'send', description: 'Sends mail.', parameters: z.object({ to: z.string() }), execute: () => (executed += 1, 'sent') });
    const model = scriptedModel((call): ScriptStep => (lastIsTool(call) ? { text: 'done' } : { toolCalls: [{ name: 'send', id: 'send-1', args: { to: 'all@example.com' } }] }));
    const noBroadcast: Guardrail = { name: 'no-broadcast', on: 'tool_call', check: (args, context) => ({ tripped: context.toolName === 'send' && (args as { to: string }).to.startsWith('all@'), reason: 'mail to everyone' }) };
    const { result, events } = await runAll({
      model,
      tools: [send],
      guardrails: [noBroadcast],
      policy: { checkToolCall: () => (gated += 1, { decision: 'allow' }) },
    });
    expect(result.tasks[0]!.stop).toMatchObject({ reason: 'guardrail_tripped', guardrail: { name: 'no-broadcast', on: 'tool_call', reason: 'mail to everyone' } });
    expect(executed).toBe(0);
    expect(gated).toBe(0);
    expect(events.find((event) => event.type === 'guardrail_tripped')).toMatchObject({ toolCallId: 'send-1', on: 'tool_call' });
    expect(events.find((event) => event.type === 'tool_execution_end')).toMatchObject({ executed: false, isError: true });
  });

  it('tool_result: the result is withheld from the model and the task stops', async () => {
    const seen: string[] = [];
    const model = scriptedModel((call): ScriptStep => {
      seen.push(lastText(call));
      return lastIsTool(call) ? { text: 'done' } : { toolCalls: [{ name: 'lookup', id: 'lookup-1', args: { email: 'a@example.com' } }] };
    });
    const noCards: Guardrail = { name: 'no-card-numbers', on: 'tool_result', check: (value) => ({ tripped: /\d{4} \d{4} \d{4} \d{4}/.test(String(value)), reason: 'a card number' }) };
    const { result, events } = await runAll({ model, tools: [lookup], guardrails: [noCards] });
    expect(result.tasks[0]!.stop).toMatchObject({ reason: 'guardrail_tripped', guardrail: { name: 'no-card-numbers', on: 'tool_result' } });
    expect(seen).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain('4111');
    expect(JSON.stringify(result)).not.toContain('4111');
  });

  it('tool_result revise: the model sees why the result was withheld and goes on', async () => {
    const seen: string[] = [];
    const model = scriptedModel((call): ScriptStep => {
      seen.push(lastText(call));
      return lastIsTool(call) ? { text: 'I could not read the record' } : { toolCalls: [{ name: 'lookup', id: 'lookup-1', args: { email: 'a@example.com' } }] };
    });
    const noCards: Guardrail = { name: 'no-card-numbers', on: 'tool_result', mode: 'revise', check: (value) => ({ tripped: String(value).includes('4111'), reason: 'a card number' }) };
    const { result } = await runAll({ model, tools: [lookup], guardrails: [noCards] });
    expect(result.stop.reason).toBe('goal_achieved');
    expect(seen[1]).toBe('Error: guardrail "no-card-numbers" withheld the result of this call: a card number');
  });
});

describe('guardrails fail closed', () => {
  const model = () => scriptedModel(() => ({ text: 'fine' }));

  it('a check that throws trips, with the error as its reason and an error event', async () => {
    const broken: Guardrail = { name: 'broken', on: 'output', check: () => { throw new Error('classifier down'); } };
    const { result, events } = await runAll({ model: model(), guardrails: [broken] });
    expect(result.tasks[0]!.stop).toMatchObject({ reason: 'guardrail_tripped', guardrail: { name: 'broken', reason: 'guardrail "broken" threw: classifier down' } });
    expect(events.find((event) => event.type === 'error')).toMatchObject({ scope: 'guardrail', code: 'guardrail_failed' });
  });

  it('a check that answers something else than { tripped: boolean } trips', async () => {
    const vague = { name: 'vague', on: 'output', check: () => ({ tripped: 'maybe' }) } as unknown as Guardrail;
    const { result } = await runAll({ model: model(), guardrails: [vague] });
    expect(result.tasks[0]!.stop.detail).toContain('answered an object without a boolean "tripped"');
  });

  it('a check that does not answer within timeoutMs trips, and its signal aborts', async () => {
    let aborted = false;
    const slow: Guardrail = {
      name: 'slow',
      on: 'input',
      timeoutMs: 50,
      check: (_value, context) => new Promise(() => context.signal.addEventListener('abort', () => (aborted = true))),
    };
    const { result } = await runAll({ model: model(), guardrails: [slow] });
    expect(result.tasks[0]!.stop.guardrail).toEqual({ name: 'slow', on: 'input', reason: 'the check did not answer within 50 ms' });
    expect(aborted).toBe(true);
  });

  it('an async check runs, and the first trip in the order given wins', async () => {
    const order: string[] = [];
    const first: Guardrail = { name: 'first', on: 'output', check: async () => (order.push('first'), { tripped: false }) };
    const second: Guardrail = { name: 'second', on: 'output', check: async () => (order.push('second'), { tripped: true, reason: 'no' }) };
    const third: Guardrail = { name: 'third', on: 'output', check: async () => (order.push('third'), { tripped: true, reason: 'no' }) };
    const { result } = await runAll({ model: model(), guardrails: [first, second, third] });
    expect(order).toEqual(['first', 'second']);
    expect(result.tasks[0]!.stop.guardrail?.name).toBe('second');
  });
});

describe('which guardrails a task runs', () => {
  const refuseAll = (name: string): Guardrail => ({ name, on: 'output', check: () => ({ tripped: true, reason: `${name} says no` }) });

  it('every task runs all of the kernel guardrails unless it names its own', async () => {
    const model = scriptedModel(() => ({ text: 'answer' }));
    const { result } = await runAll({ model, guardrails: [refuseAll('strict')], onTaskStop: 'continue' }, [
      { id: 'free', description: 'one', guardrails: [] },
      { id: 'guarded', description: 'two' },
    ]);
    expect(result.tasks.map((task) => [task.taskId, task.stop.reason])).toEqual([
      ['free', 'planner_stopped'],
      ['guarded', 'guardrail_tripped'],
    ]);
  });

  it('naming an unknown guardrail or revising an input is invalid configuration, every bad field named', () => {
    const model = scriptedModel(() => ({ text: 'answer' }));
    const kernel = createKernel({ model, guardrails: [refuseAll('strict')] });
    expect(() => kernel.start([{ description: 'x', guardrails: ['strict', 'lax'] }])).toThrow(/tasks\.0\.guardrails\.1: unknown guardrail "lax" \(known: strict\)/);
    const bad = [
      { name: 'a', on: 'input', mode: 'revise', check: () => ({ tripped: false }) },
      { name: 'a', on: 'everywhere', check: 'no' },
    ] as unknown as Guardrail[];
    expect(() => createKernel({ model, guardrails: bad })).toThrow(/guardrails\.0\.mode[\s\S]*guardrails\.1\.on[\s\S]*guardrails\.1\.check/);
    expect(() => createKernel({ model, guardrails: [refuseAll('same'), refuseAll('same')] })).toThrow(/guardrails\.1\.name: duplicate guardrail name "same"/);
  });
});

describe('declarativeGuardrail and what checks spend', () => {
  it('bounds a pattern that backtracks past the validate-time check: the test is cut and the guardrail trips', async () => {
    const model = scriptedModel(() => ({ text: `${'a'.repeat(40)}!` }));
    const slow = declarativeGuardrail({ name: 'alternation', on: 'output', denyPatterns: ['^(a|aa)*$'] });
    const started = Date.now();
    const { result } = await runAll({ model, guardrails: [slow] });
    expect(result.tasks[0]!.stop.guardrail?.reason).toBe('the pattern ^(a|aa)*$ took longer than 100 ms');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a judge answering neither PASS nor FAIL trips; PASS lets the answer through', async () => {
    const answer = () => scriptedModel(() => ({ text: 'a calm answer' }));
    const judgeSays = (text: string) => declarativeGuardrail({ name: 'calm', on: 'output', judge: { prompt: 'Is it calm?', model: scriptedModel(() => ({ text })) } });
    expect((await runAll({ model: answer(), guardrails: [judgeSays('PASS')] })).result.tasks[0]!.stop.reason).toBe('planner_stopped');
    const unsure = (await runAll({ model: answer(), guardrails: [judgeSays('maybe?')] })).result.tasks[0]!.stop;
    expect(unsure.guardrail?.reason).toBe('the judge answered neither PASS nor FAIL: maybe?');
  });

  it('context.charge counts against the task budget: a guardrail that spends can stop the task budget_exhausted', async () => {
    const model = scriptedModel((call): ScriptStep => (lastIsTool(call) ? { text: 'done' } : { toolCalls: [{ name: 'lookup', id: `lookup-${call.index}`, args: { email: 'a@example.com' } }], usage: { inputTokens: 1, outputTokens: 1 } }));
    const costly: Guardrail = { name: 'costly', on: 'tool_call', check: (_args, context) => (context.charge({ inputTokens: 60, outputTokens: 0 }, 0.5), { tripped: false }) };
    const { result } = await runAll({ model, tools: [lookup], guardrails: [costly], bounds: { inner: { maxTokens: 50 } } });
    expect(result.tasks[0]!.stop).toMatchObject({ reason: 'budget_exhausted', bound: { name: 'inner.maxTokens', limit: 50, value: 62 } });
    expect(result.tasks[0]!.costUsd).toBe(0.5);
    expect(result.metrics).toMatchObject({ inputTokens: 61, outputTokens: 1, costUsd: 0.5 });
  });
});

describe('guardrails across delegation', () => {
  const firstUser = (call: ScriptCall) => String(call.messages.find((message) => message.role === 'user')?.content ?? '');
  const model = () =>
    scriptedModel((call): ScriptStep => {
      if (firstUser(call).startsWith('Research')) return { text: 'RESEARCH SAYS HI' };
      return lastIsTool(call) ? { text: `writer saw: ${lastText(call)}` } : { toolCalls: [{ name: 'research', id: 'research-1', args: {} }] };
    });
  const noShouting: Guardrail = { name: 'no-shouting', on: 'output', check: (value) => ({ tripped: /^[^a-z]+$/.test(String(value)), reason: 'all capitals' }) };

  it('a child run runs the parent kernel guardrails: its trip is its stop, and the parent sees it as an error result', async () => {
    const research = agentTool({ name: 'research', description: 'Researches.', parameters: z.object({}), tasks: ['Research otters'] });
    const { result } = await runAll({ model: model(), tools: [research], guardrails: [noShouting] }, ['Write about otters']);
    expect(result.tasks[0]!.output).toMatch(/^writer saw: Error: child run .* stopped guardrail_tripped: .*guardrail "no-shouting" \(output\) tripped: all capitals/);
  });

  it('an agent that sets its own guardrails replaces the parent kernel ones', async () => {
    const research = agentTool({ name: 'research', description: 'Researches.', parameters: z.object({}), tasks: ['Research otters'], guardrails: [] });
    const { result } = await runAll({ model: model(), tools: [research], guardrails: [noShouting] }, ['Write about otters']);
    expect(result.tasks[0]!.output).toBe('writer saw: RESEARCH SAYS HI');
  });
});
