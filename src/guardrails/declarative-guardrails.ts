/**
 * Guardrails written as data (a manifest's `guardrails:`, or `declarativeGuardrail()`): exactly
 * one check each — `maxChars`, `denyPatterns`, `jsonSchema` or `judge` — on one place. The value
 * is checked as text: an answer, a description or a tool result as it is; a tool call's arguments
 * as JSON. docs/guardrails.md documents each one.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { GUARDRAIL_STAGES, type Guardrail, type GuardrailVerdict } from '../contracts/guardrails.js';
import { lazySchema, type SchemaOf } from '../contracts/lazy-schema.js';
import type { Model } from '../contracts/model.js';
import type { JsonSchema } from '../contracts/turn-protocol.js';
import { zodIssues } from '../contracts/zod-issues.js';
import { ConfigError } from '../errors.js';
import { outputJsonSchema } from '../graph/output-schema.js';
import { parseAnswer } from '../output/answer-json.js';
import { checkValue } from '../output/output-validator.js';
import { describeOutputIssues } from '../contracts/typed-output.js';
import { toContent } from '../tools/tool-results.js';
import { judgeCheck } from './judge.js';
import { compilePattern, PATTERN_TIMEOUT_MS, patternProblem } from './safe-pattern.js';

const CHECKS = ['maxChars', 'denyPatterns', 'jsonSchema', 'judge'] as const;

/** The schema of a declarative guardrail whose `judge.model` is `judgeModel` (a Model in the API, a model block in a manifest). */
export function declarativeGuardrailSchema<Judge extends z.ZodType>(judgeModel: Judge) {
  return z
    .strictObject({
      name: z.string().trim().min(1, 'must be a non-empty name').describe('Names the guardrail in stops, events and the audit; tasks name it in their guardrails list'),
      on: z.enum(GUARDRAIL_STAGES as ['input', 'output', 'tool_call', 'tool_result']).describe('input, output, tool_call or tool_result'),
      mode: z.enum(['stop', 'revise']).optional().describe('stop (default) ends the task guardrail_tripped; revise tells the model and lets it try again'),
      timeoutMs: z.number().int().positive().optional().describe('How long the check may take (default 30000); longer trips it'),
      maxChars: z.number().int().positive().optional().describe('Trips on a value longer than this many characters'),
      denyPatterns: z
        .array(z.string().min(1).superRefine((pattern, context) => {
          const problem = patternProblem(pattern);
          if (problem !== undefined) context.addIssue({ code: 'custom', message: `the pattern ${JSON.stringify(pattern.slice(0, 80))} ${problem}` });
        }))
        .min(1)
        .optional()
        .describe('Regular expressions (source, or /source/flags); trips on a value any of them matches'),
      jsonSchema: z
        .custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value) && !('problem' in outputJsonSchema(value)), 'must be a JSON Schema object this version can check')
        .optional()
        .describe('Trips on a value that is not JSON matching this schema'),
      judge: z
        .strictObject({
          prompt: z.string().trim().min(1, 'must say what the judge checks').describe('What the judge model checks; it answers PASS or FAIL'),
          model: judgeModel.optional(),
        })
        .optional()
        .describe('A model call that answers PASS or FAIL, charged to the task'),
    })
    .superRefine((spec, context) => {
      const given = CHECKS.filter((check) => spec[check] !== undefined);
      if (given.length !== 1) context.addIssue({ code: 'custom', message: `must have exactly one of ${CHECKS.join(', ')} (it has ${given.length === 0 ? 'none' : given.join(' and ')})` });
      if (spec.on === 'input' && spec.mode === 'revise') context.addIssue({ code: 'custom', path: ['mode'], message: 'an input guardrail only stops: there is no answer to revise (mode "stop")' });
    });
}

export const DeclarativeGuardrailSchema = lazySchema(() =>
  declarativeGuardrailSchema(z.custom<Model>((value) => typeof (value as { call?: unknown } | null)?.call === 'function', 'must be a Model (an object with call())').describe('The judge model; default options.model')),
);
export type DeclarativeGuardrailSpec = z.input<SchemaOf<typeof DeclarativeGuardrailSchema>>;

/** A Guardrail from its spec; `model` answers a `judge` (required for one). Throws ConfigError naming every bad field. */
export function declarativeGuardrail(spec: DeclarativeGuardrailSpec, options: { readonly model?: Model } = {}): Guardrail {
  const parsed = DeclarativeGuardrailSchema().safeParse(spec);
  if (!parsed.success) throw new ConfigError({ message: `Invalid guardrail "${String(spec?.name)}"`, issues: zodIssues(parsed.error) });
  const { name, on, mode, timeoutMs, maxChars, denyPatterns, jsonSchema, judge } = parsed.data;
  const judgeModel = judge?.model ?? options.model;
  if (judge !== undefined && judgeModel === undefined) throw new ConfigError({ message: `Invalid guardrail "${name}"`, issues: [{ path: 'judge.model', message: 'a judge needs a model (judge.model or options.model)' }] });
  const text = (value: unknown) => (on === 'tool_call' ? toContent(value) : typeof value === 'string' ? value : toContent(value));
  let check: (value: unknown, context: Parameters<Guardrail['check']>[1]) => GuardrailVerdict | Promise<GuardrailVerdict>;
  if (maxChars !== undefined) {
    check = (value) => {
      const length = text(value).length;
      return length > maxChars ? { tripped: true, reason: `${length} characters, more than maxChars=${maxChars}` } : { tripped: false };
    };
  } else if (denyPatterns !== undefined) {
    const patterns = denyPatterns.map(compilePattern);
    check = (value) => {
      const subject = text(value);
      for (const pattern of patterns) {
        const matched = pattern.test(subject);
        if (matched === 'timeout') return { tripped: true, reason: `the pattern ${pattern.written} took longer than ${PATTERN_TIMEOUT_MS} ms` };
        if (matched) return { tripped: true, reason: `matches the denied pattern ${pattern.written}` };
      }
      return { tripped: false };
    };
  } else if (jsonSchema !== undefined) {
    const schema = jsonSchema as JsonSchema;
    check = (value) => {
      const parsedValue = on === 'tool_call' ? { ok: true as const, value } : parseAnswer(text(value));
      if (!parsedValue.ok) return { tripped: true, reason: parsedValue.issue.message };
      const checked = checkValue(schema, parsedValue.value, 64);
      return checked.ok ? { tripped: false } : { tripped: true, reason: `does not match the schema: ${describeOutputIssues(checked.issues)}` };
    };
  } else {
    const judged = judgeCheck({ model: judgeModel!, prompt: judge!.prompt });
    check = (value, context) => judged(text(value), context);
  }
  // What the check is made of is its version: a changed pattern or schema changes the workflow's fingerprint.
  const made = { maxChars, denyPatterns, jsonSchema, judge: judge === undefined ? undefined : { prompt: judge.prompt, model: `${judgeModel!.provider}/${judgeModel!.modelId}` } };
  const version = createHash('sha256').update(JSON.stringify(made)).digest('hex').slice(0, 16);
  return { name, on, check, version, ...(mode === undefined ? {} : { mode }), ...(timeoutMs === undefined ? {} : { timeoutMs }) };
}
