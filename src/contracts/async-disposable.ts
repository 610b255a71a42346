/**
 * `[Symbol.asyncDispose]()` as a member type, where the consumer's types declare
 * `Symbol.asyncDispose` (TypeScript's `esnext.disposable` lib, or @types/node), and nothing where
 * they do not: a published type must compile for a consumer with neither (ADR/0401). Where the
 * symbol is declared, `await using x = …` works on a type that includes this one.
 */
export type AsyncDisposableWhereDeclared = SymbolConstructor extends { readonly asyncDispose: infer Key extends symbol }
  ? { [K in Key]: () => Promise<void> }
  : unknown;
