import { z } from 'zod';
import type { Tool } from '../../contracts/tool.js';
import { defineTool } from '../define-tool.js';
import { evaluateArithmetic, MAX_EXPRESSION_LENGTH } from './arithmetic.js';

/**
 * `calculator`: evaluates an arithmetic expression with a parser of its own (no `eval`), so a
 * model's input can never run code. The result is rounded to 12 significant digits, which hides
 * binary floating-point noise (`0.1 + 0.2` gives `0.3`). A bad expression is an error result.
 */
export function calculatorTool(): Tool {
  return defineTool({
    name: 'calculator',
    description:
      'Evaluates an arithmetic expression and returns the number. Operators: + - * / % ^ (power) and parentheses; ' +
      'functions: sqrt, abs, round(x, digits), floor, ceil, ln, log10, exp, min, max; constants: pi, e.',
    parameters: z.object({
      expression: z.string().min(1).max(MAX_EXPRESSION_LENGTH).describe('For example "(12.5 + 7.25) * 3" or "round(100 / 3, 2)"'),
    }),
    executionMode: 'parallel',
    execute: ({ expression }) => ({ expression, result: Number(evaluateArithmetic(expression).toPrecision(12)) }),
  });
}
