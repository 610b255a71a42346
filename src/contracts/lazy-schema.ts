/**
 * A zod schema built on first use instead of when its module loads (ADR/0390). Building a zod 4
 * schema costs far more than running it, and most of dualloop's internal schemas serve features a
 * given program never uses (fork options, MCP config, workers, the plan strategies, checkpoint
 * reading): built at import, they made `import('dualloop')` ~25 ms slower.
 *
 * The getter returns the same instance on every call, so a schema shared by several others is
 * still one object, as it was when it was a module constant. Schemas composed of other schemas
 * call those getters inside their own builder. Public zod values (`StopReason`, `StrategyName`,
 * the error code enums) stay eager: DESIGN.md §3 names them as values.
 */
export type LazySchema<Schema> = () => Schema;

/** The schema a getter returns, for `z.infer<SchemaOf<typeof X>>` and `z.input<SchemaOf<typeof X>>`. */
export type SchemaOf<Getter extends LazySchema<unknown>> = ReturnType<Getter>;

/** Memoizes `build`: it runs at the getter's first call, never before. */
export function lazySchema<Schema>(build: () => Schema): LazySchema<Schema> {
  let schema: Schema | undefined;
  return () => (schema ??= build());
}
