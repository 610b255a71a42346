import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';

/** One problem in a manifest or cassette, with the YAML path and the line it is on. */
export interface SourceIssue {
  /** The file the problem is in, as the user named it. */
  readonly file: string;
  /** Dotted path (`bounds.inner.maxTurns`, `tasks.2.id`); empty for the whole document. */
  readonly path: string;
  /** 1-based line, when the path (or its nearest existing parent) is in the file. */
  readonly line?: number;
  readonly message: string;
}

/** A parsed YAML (or JSON) document that remembers where each value came from. */
export interface YamlSource {
  readonly file: string;
  /** The plain JavaScript value; undefined when the text has syntax errors. */
  readonly data: unknown;
  /** Syntax errors, each with its line; when any, `data` is undefined. */
  readonly syntaxIssues: readonly SourceIssue[];
  /** The line of the field at `path` (its key's line; an item's own line), or of its nearest existing ancestor's value for a missing one. */
  lineOf(path: readonly PropertyKey[]): number | undefined;
}

/** Most alias expansions a document may cause, relative to its size (the `yaml` package's own measure). */
const MAX_ALIAS_COUNT = 100;

/** Parses YAML 1.2 (a superset of JSON) keeping node positions, so every problem can name its line. */
export function parseYamlSource(text: string, file: string): YamlSource {
  const lineCounter = new LineCounter();
  // logLevel 'error': the yaml package's warnings (a collection used as a key) would go to stderr as process warnings.
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, logLevel: 'error' });
  const lineAt = (offset: number | undefined) => (offset === undefined ? undefined : lineCounter.linePos(offset).line);
  const syntaxIssues = document.errors.map(
    (error): SourceIssue => ({ file, path: '', ...lineField(lineAt(error.pos[0])), message: explained(firstLine(error.message)) }),
  );
  const data = syntaxIssues.length > 0 ? undefined : toPlainValue(document, file);
  return {
    file,
    data: data?.value,
    syntaxIssues: data?.issue === undefined ? syntaxIssues : [data.issue],
    lineOf: (path) => lineAt(locate(document, path)),
  };
}

/**
 * The document as plain values. Aliases are bounded (an alias bomb, "billion laughs", expands to
 * gigabytes): past the bound the document is an issue, never a throw (ADR 0111).
 */
function toPlainValue(document: Document, file: string): { value?: unknown; issue?: SourceIssue } {
  try {
    return { value: document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    const reason = explained(error instanceof Error ? firstLine(error.message) : String(error));
    // Only the alias bound's own refusal is about expansion; an unresolved alias (or anything else) says just what it is.
    const why = /excessive alias count/i.test(reason) ? ` (aliases expand to more than ${MAX_ALIAS_COUNT} times their size)` : '';
    return { issue: { file, path: '', message: `refused: ${reason}${why}` } };
  }
}

/** The parser's own words, except where they describe the parser rather than the document. */
function explained(message: string): string {
  return /maximum call stack/i.test(message) ? 'nested too deeply to read (a manifest is configuration: a few levels are enough)' : message;
}

/**
 * The start offset of the node at `path`, or of the deepest key or node on the way to it. A path
 * that ends at a mapping's field is placed at its key: the problem is the field's (an unknown
 * `taks:`, a `model:` of the wrong shape), and a block value starts on a later line than its key.
 * A missing field is placed at its parent's value, where it would be written.
 */
function locate(document: Document, path: readonly PropertyKey[]): number | undefined {
  let node: unknown = document.contents;
  let offset = rangeStart(node);
  for (const [index, segment] of path.entries()) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment));
      if (pair === undefined) return offset;
      offset = rangeStart(pair.key) ?? offset;
      if (pair.value === null || pair.value === undefined || index === path.length - 1) return offset;
      node = pair.value;
      offset = rangeStart(node) ?? offset;
    } else if (isSeq(node) && typeof segment !== 'symbol' && Number.isInteger(Number(segment))) {
      const item = node.items[Number(segment)];
      if (item === undefined) return offset;
      node = item;
      offset = rangeStart(item) ?? offset;
    } else {
      return offset;
    }
  }
  return offset;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range === undefined || range === null ? undefined : range[0];
}

function lineField(line: number | undefined): { line?: number } {
  return line === undefined || line === 0 ? {} : { line };
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

/** `path (line N): message`, the one format every manifest problem is printed in. */
export function formatIssue(issue: SourceIssue): string {
  const where = issue.path === '' ? '(document)' : issue.path;
  return `${where}${issue.line === undefined ? '' : ` (line ${issue.line})`}: ${issue.message}`;
}

export function withLine(source: YamlSource, path: readonly PropertyKey[], message: string): SourceIssue {
  return { file: source.file, path: path.map(String).join('.'), ...lineField(source.lineOf(path)), message };
}
