/**
 * A small arithmetic language, parsed and evaluated without `eval` or `Function`:
 *
 *   expression := term (("+" | "-") term)*
 *   term       := unary (("*" | "/" | "%") unary)*
 *   unary      := ("-" | "+") unary | power
 *   power      := primary ("^" unary)?            right-associative; "**" is a synonym of "^"
 *   primary    := number | constant | function "(" expression ("," expression)* ")" | "(" expression ")"
 *
 * Numbers are plain decimals with an optional fraction and exponent (`1.5e3`), without digit
 * separators. Anything else — names not listed below, property access, strings — is an error.
 */

// Maps, not object literals: a name such as `constructor` must not find a prototype member.
const CONSTANTS: ReadonlyMap<string, number> = new Map([
  ['pi', Math.PI],
  ['e', Math.E],
]);

interface MathFunction {
  readonly arity: readonly [least: number, most: number];
  readonly apply: (...args: number[]) => number;
}

const FUNCTIONS: ReadonlyMap<string, MathFunction> = new Map<string, MathFunction>([
  ['sqrt', { arity: [1, 1], apply: Math.sqrt }],
  ['abs', { arity: [1, 1], apply: Math.abs }],
  ['round', { arity: [1, 2], apply: (value, digits = 0) => roundTo(value!, digits) }],
  ['floor', { arity: [1, 1], apply: Math.floor }],
  ['ceil', { arity: [1, 1], apply: Math.ceil }],
  ['ln', { arity: [1, 1], apply: Math.log }],
  ['log10', { arity: [1, 1], apply: Math.log10 }],
  ['exp', { arity: [1, 1], apply: Math.exp }],
  ['min', { arity: [1, 64], apply: Math.min }],
  ['max', { arity: [1, 64], apply: Math.max }],
]);

export const MAX_EXPRESSION_LENGTH = 1_000;
const MAX_DEPTH = 64;

export class ArithmeticError extends Error {
  override readonly name = 'ArithmeticError';
}

type Token = { readonly kind: 'number'; readonly value: number; readonly at: number } | { readonly kind: 'name' | 'symbol'; readonly text: string; readonly at: number };

/** Evaluates `source`; throws ArithmeticError with the position of the problem. */
export function evaluateArithmetic(source: string): number {
  if (source.length > MAX_EXPRESSION_LENGTH) throw new ArithmeticError(`expression longer than ${MAX_EXPRESSION_LENGTH} characters`);
  const tokens = tokenize(source);
  let position = 0;
  let depth = 0;

  const peek = (): Token | undefined => tokens[position];
  const isSymbol = (token: Token | undefined, ...symbols: string[]): boolean => token?.kind === 'symbol' && symbols.includes(token.text);
  const expect = (symbol: string): void => {
    const token = peek();
    if (!isSymbol(token, symbol)) throw new ArithmeticError(`expected "${symbol}" at ${describeAt(token, source)}`);
    position += 1;
  };
  const nested = <T>(parse: () => T): T => {
    depth += 1;
    if (depth > MAX_DEPTH) throw new ArithmeticError(`expression nested deeper than ${MAX_DEPTH} levels`);
    try {
      return parse();
    } finally {
      depth -= 1;
    }
  };

  const expression = (): number =>
    nested(() => {
      let value = term();
      while (isSymbol(peek(), '+', '-')) {
        const operator = (tokens[position++] as { text: string }).text;
        const right = term();
        value = operator === '+' ? value + right : value - right;
      }
      return value;
    });

  const term = (): number => {
    let value = unary();
    while (isSymbol(peek(), '*', '/', '%')) {
      const operator = (tokens[position++] as { text: string }).text;
      const right = unary();
      if ((operator === '/' || operator === '%') && right === 0) throw new ArithmeticError('division by zero');
      value = operator === '*' ? value * right : operator === '/' ? value / right : value % right;
    }
    return value;
  };

  const unary = (): number =>
    nested(() => {
      if (isSymbol(peek(), '-', '+')) {
        const operator = (tokens[position++] as { text: string }).text;
        const value = unary();
        return operator === '-' ? -value : value;
      }
      return power();
    });

  const power = (): number => {
    const base = primary();
    if (!isSymbol(peek(), '^')) return base;
    position += 1;
    return base ** unary();
  };

  const primary = (): number => {
    const token = peek();
    if (token === undefined) throw new ArithmeticError('unexpected end of expression');
    position += 1;
    if (token.kind === 'number') return token.value;
    if (token.kind === 'symbol') {
      if (token.text !== '(') throw new ArithmeticError(`unexpected ${describeAt(token, source)}`);
      const value = expression();
      expect(')');
      return value;
    }
    const name = token.text.toLowerCase();
    const constant = CONSTANTS.get(name);
    if (constant !== undefined) return constant;
    const fn = FUNCTIONS.get(name);
    if (fn === undefined) throw new ArithmeticError(`unknown name "${token.text}" at column ${token.at + 1} (functions: ${[...FUNCTIONS.keys()].join(', ')}; constants: pi, e)`);
    expect('(');
    const args = [expression()];
    while (isSymbol(peek(), ',')) {
      position += 1;
      args.push(expression());
    }
    expect(')');
    const [least, most] = fn.arity;
    if (args.length < least || args.length > most) throw new ArithmeticError(`${name}() takes ${least === most ? least : `${least} to ${most}`} argument(s), got ${args.length}`);
    return fn.apply(...args);
  };

  const value = expression();
  if (position < tokens.length) throw new ArithmeticError(`unexpected ${describeAt(tokens[position], source)}`);
  if (!Number.isFinite(value)) throw new ArithmeticError(`the result is not a finite number (${value})`);
  return value;
}

/** Rounds to `digits` decimals (0–15), halves away from zero. */
function roundTo(value: number, digits: number): number {
  if (!Number.isInteger(digits) || digits < 0 || digits > 15) throw new ArithmeticError('round(): digits must be an integer from 0 to 15');
  const factor = 10 ** digits;
  return (Math.sign(value) * Math.round(Math.abs(value) * factor)) / factor;
}

const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < source.length) {
    const rest = source.slice(at);
    const space = /^\s+/.exec(rest);
    if (space !== null) {
      at += space[0].length;
      continue;
    }
    const number = NUMBER.exec(rest);
    if (number !== null) {
      tokens.push({ kind: 'number', value: Number(number[0]), at });
      at += number[0].length;
      continue;
    }
    const name = NAME.exec(rest);
    if (name !== null) {
      tokens.push({ kind: 'name', text: name[0], at });
      at += name[0].length;
      continue;
    }
    if (rest.startsWith('**')) {
      tokens.push({ kind: 'symbol', text: '^', at });
      at += 2;
      continue;
    }
    const symbol = rest[0]!;
    if (!'+-*/%^(),'.includes(symbol)) throw new ArithmeticError(`unexpected character "${symbol}" at column ${at + 1}`);
    tokens.push({ kind: 'symbol', text: symbol, at });
    at += 1;
  }
  return tokens;
}

function describeAt(token: Token | undefined, source: string): string {
  if (token === undefined) return `end of expression (column ${source.length + 1})`;
  return `"${token.kind === 'number' ? String(token.value) : token.text}" at column ${token.at + 1}`;
}
