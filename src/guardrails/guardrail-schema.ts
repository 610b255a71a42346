/** The `guardrails` kernel option, checked with the other options (one ConfigError naming every bad field). */
import { z } from 'zod';
import { GUARDRAIL_STAGES } from '../contracts/guardrails.js';
import { lazySchema } from '../contracts/lazy-schema.js';

const GuardrailSchema = lazySchema(() =>
  z
    .strictObject({
      name: z.string().trim().min(1, 'must be a non-empty name'),
      on: z.enum(GUARDRAIL_STAGES as ['input', 'output', 'tool_call', 'tool_result']),
      check: z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', 'must be a function (value, context) => { tripped, reason? }'),
      mode: z.enum(['stop', 'revise']).optional(),
      timeoutMs: z.number().int().positive().optional(),
      version: z.string().optional(),
    })
    .refine((guardrail) => !(guardrail.on === 'input' && guardrail.mode === 'revise'), { message: 'an input guardrail only stops: there is no answer to revise (mode "stop")', path: ['mode'] }),
);

export const GuardrailListSchema = lazySchema(() =>
  z.array(GuardrailSchema()).superRefine((guardrails, context) => {
    const seen = new Map<string, number>();
    guardrails.forEach((guardrail, index) => {
      const first = seen.get(guardrail.name);
      if (first !== undefined) context.addIssue({ code: 'custom', path: [index, 'name'], message: `duplicate guardrail name "${guardrail.name}" (also guardrails.${first})` });
      else seen.set(guardrail.name, index);
    });
  }),
);
