/**
 * A task with `output`: its final answer must be JSON matching the schema. A mismatch goes back to
 * the model with the issues, as another turn inside the task's bounds; after `maxOutputRepairs`
 * repairs the task stops `invalid_output` (docs/api.md, "Typed outputs").
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel } from 'dualloop';
import { collectRun, scriptedModel, type Script } from 'dualloop/testing';
import { INVALID, invalidEvents, Report, repairOf, reportTask, VALID } from './helpers.js';

async function run(script: Script, task: Record<string, unknown> = {}, options: Record<string, unknown> = {}) {
  const model = scriptedModel(script);
  const outcome = await collectRun(createKernel({ model, system: 'You write reports.', ...options }).start([reportTask(task)]));
  return { ...outcome, model, task: outcome.result.tasks[0]! };
}

describe('typed outputs: validation and repair', () => {
  it('a valid first answer ends the task planner_stopped with the parsed value as its output', async () => {
    const { task, model, events } = await run([{ text: VALID }]);

    expect(task.stop.reason).toBe('planner_stopped');
    expect(task.output).toEqual({ title: 'Q3', count: 3 });
    expect(invalidEvents(events)).toEqual([]);
    // The model was asked for JSON: in the system message (with the schema) and as a response format.
    const call = model.calls[0]!;
    const { $schema: _dialect, ...stored } = z.toJSONSchema(Report, { io: 'output' });
    expect(call.responseFormat).toEqual({ type: 'json', name: 'report', schema: stored });
    expect(call.messages[0]).toMatchObject({ role: 'system' });
    expect(call.messages[0]!.content).toMatch(/^You write reports\.\n\nYour final answer .* must be only a JSON value matching this JSON Schema/);
    expect(call.messages[0]!.content).toContain('"required":["title","count"]');
  });

  it('an invalid answer goes back to the model with the issue path; the repaired answer is the output', async () => {
    const { task, model, events } = await run([{ text: INVALID }, { text: VALID }]);

    expect(task.stop.reason).toBe('planner_stopped');
    expect(task.turnCount).toBe(2);
    expect(task.output).toEqual({ title: 'Q3', count: 3 });
    const repair = repairOf(model.calls[1]!.messages);
    expect(repair).toContain('repair 1 of 2');
    expect(repair).toMatch(/- title: .*expected string/);
    expect(invalidEvents(events)).toMatchObject([{ taskId: 'report', turn: 1, outcome: 'repair', repairs: 1, wrapUp: false, issues: [{ path: 'title' }] }]);
    // The repair is in the stored transcript of the task (its turns), the instruction is not.
    expect(model.calls[1]!.messages.filter((message) => message.role === 'system')).toHaveLength(1);
  });

  it('after maxOutputRepairs repairs that still fail, the task stops invalid_output naming path and message', async () => {
    const { task, model, result, events } = await run(() => ({ text: INVALID }));

    expect(model.calls).toHaveLength(3);
    expect(task.stop.reason).toBe('invalid_output');
    expect(task.stop.detail).toMatch(/after 2 repairs \(maxOutputRepairs=2\): title: Invalid input: expected string, received number$/);
    expect(task.stop.bound).toEqual({ name: 'maxOutputRepairs', limit: 2, value: 2 });
    expect(task.output).toBeUndefined();
    expect(result.stop.reason).toBe('invalid_output');
    expect(invalidEvents(events).map((event) => [event.outcome, event.repairs])).toEqual([['repair', 1], ['repair', 2], ['stopped', 2]]);
  });

  it('honours a task bound of 0 repairs: the first mismatch stops the task', async () => {
    const { task, model } = await run(() => ({ text: 'not json' }), { bounds: { maxOutputRepairs: 0 } });
    expect(model.calls).toHaveLength(1);
    expect(task.stop.reason).toBe('invalid_output');
    expect(task.stop.detail).toMatch(/maxOutputRepairs=0: \(root\): the answer is not JSON/);
  });

  it('repairs are turns: max_turns still applies, and wins when both fire at the same check', async () => {
    const repairsLeft = await run(() => ({ text: INVALID }), { bounds: { maxTurns: 2, maxOutputRepairs: 5 } });
    expect(repairsLeft.task.stop.reason).toBe('max_turns');
    expect(repairsLeft.model.calls).toHaveLength(2);

    // Turn 2: the turn bound and the repair bound both hold; max_turns ranks first.
    const both = await run(() => ({ text: INVALID }), { bounds: { maxTurns: 2, maxOutputRepairs: 1 } });
    expect(both.task.stop.reason).toBe('max_turns');
    expect(invalidEvents(both.events).map((event) => event.outcome)).toEqual(['repair', 'stopped']);
  });

  it('takes the JSON out of one ```json fence with surrounding whitespace, and nothing more lenient', async () => {
    const fenced = await run([{ text: `\n  \`\`\`json\n${VALID}\n\`\`\`  \n` }]);
    expect(fenced.task.output).toEqual({ title: 'Q3', count: 3 });

    const prose = await run([{ text: `Here it is: ${VALID}` }, { text: VALID }]);
    expect(prose.task.turnCount).toBe(2);
    expect(repairOf(prose.model.calls[1]!.messages)).toMatch(/- \(root\): the answer is not JSON/);
  });

  it('reports unknown keys and several issues, bounded', async () => {
    const many = JSON.stringify({ title: 1, count: 'x', ...Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`extra${index}`, index])) });
    const strict = z.strictObject({ title: z.string(), count: z.number() });
    const { events } = await run([{ text: many }, { text: VALID }], { output: strict });
    const [event] = invalidEvents(events);
    expect(event!.issues[0]).toMatchObject({ path: 'title' });
    expect(event!.issues.length).toBeLessThanOrEqual(11);
  });

  it('a task without output keeps its text output and gets no response format', async () => {
    const model = scriptedModel([{ text: 'plain' }]);
    const result = await createKernel({ model }).start(['say it']).result;
    expect(result.tasks[0]!.output).toBe('plain');
    expect(model.calls[0]!.responseFormat).toBeUndefined();
    expect(model.calls[0]!.messages.map((message) => message.role)).toEqual(['user']);
  });
});
