import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculatorTool, type ToolExecutionContext } from 'dualloop';

const context: ToolExecutionContext = { signal: new AbortController().signal, toolCallId: 'call_1', runId: 'run', taskId: 'task', update: () => undefined };
const calculate = async (expression: string) => calculatorTool().execute({ expression }, context) as Promise<{ result: number }>;

describe('calculator', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['2 ^ 3 ^ 2', 512],
    ['2 ** 10', 1024],
    ['-2 ^ 2', -4],
    ['--3', 3],
    ['10 % 4', 2],
    ['7 / 2', 3.5],
    ['1.5e3 + .5', 1500.5],
    ['0.1 + 0.2', 0.3],
    ['sqrt(16) + abs(-2)', 6],
    ['round(100 / 3, 2)', 33.33],
    ['round(-2.5)', -3],
    ['max(1, 7, 3) - min(4, 2)', 5],
    ['floor(pi * 100) / 100', 3.14],
    ['ln(e)', 1],
    ['18.40 + 32.00 + 142.50 + 64.90', 257.8],
  ])('%s = %d', async (expression, expected) => {
    expect((await calculate(expression)).result).toBe(expected);
  });

  it.each([
    ['process.exit(1)', /unexpected character "\."/],
    ['process', /unknown name "process"/],
    ['__proto__', /unknown name "__proto__"/],
    ['toString(1)', /unknown name "toString"/],
    ['constructor', /unknown name "constructor"/],
    ['globalThis', /unknown name/],
    ['1; 2', /unexpected character ";"/],
    ['"1" + 1', /unexpected character """/],
    ['[1]', /unexpected character "\["/],
    ['1 / 0', /division by zero/],
    ['1 +', /unexpected end of expression/],
    ['(1 + 2', /expected "\)"/],
    ['1 2', /unexpected "2" at column 3/],
    ['sqrt(1, 2)', /sqrt\(\) takes 1 argument/],
    ['10 ^ 400', /not a finite number/],
    ['('.repeat(100) + '1' + ')'.repeat(100), /nested deeper than 64/],
  ])('refuses %s', async (expression, problem) => {
    await expect(calculate(expression)).rejects.toThrow(problem);
  });

  it('validates its arguments with a length limit', () => {
    expect(calculatorTool().parameters.safeParse({ expression: '1+'.repeat(600) + '1' }).success).toBe(false);
  });

  it('agrees with JavaScript arithmetic on random expressions', async () => {
    type Tree = { value: number } | { op: '+' | '-' | '*'; left: Tree; right: Tree };
    const leaf = fc.integer({ min: -1000, max: 1000 }).map((value): Tree => ({ value }));
    const { tree } = fc.letrec<{ tree: Tree }>((recurse) => ({
      tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.record({ op: fc.constantFrom('+', '-', '*'), left: recurse('tree'), right: recurse('tree') }) as fc.Arbitrary<Tree>),
    }));
    const text = (node: Tree): string => ('value' in node ? (node.value < 0 ? `(${node.value})` : String(node.value)) : `(${text(node.left)} ${node.op} ${text(node.right)})`);
    const value = (node: Tree): number => {
      if ('value' in node) return node.value;
      const [left, right] = [value(node.left), value(node.right)];
      return node.op === '+' ? left + right : node.op === '-' ? left - right : left * right;
    };
    await fc.assert(
      fc.asyncProperty(tree, async (node) => {
        const expected = value(node);
        fc.pre(Number.isFinite(expected) && Math.abs(expected) < 1e12);
        expect((await calculate(text(node))).result).toBe(Number(expected.toPrecision(12)));
      }),
      { seed: 20260601, numRuns: 300 },
    );
  });
});
