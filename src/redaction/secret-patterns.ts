/**
 * What a secret looks like when nobody configured it: key-shaped tokens. `partialTokenLength`
 * finds what could still grow into one at the end of streamed text, so a key split across two
 * `message_update` deltas is held back instead of leaking in halves.
 */

/** What every redacted value or token is replaced by. */
export const REDACTED = '[redacted]';

/**
 * Key-shaped tokens: OpenAI/Anthropic-style `sk-…` (masked `sk-ab***yz` too), Stripe-style
 * `sk_…`, bearer credentials, JWTs, GitHub, AWS access key ids, Slack and Google API keys.
 */
export const TOKEN_SOURCES: readonly string[] = [
  String.raw`\bsk-[A-Za-z0-9_*-]{8,}`,
  String.raw`\bsk_[A-Za-z0-9_]{16,}`,
  String.raw`\b[Bb]earer\s+[A-Za-z0-9._~+/=-]{8,}`,
  // Only where a run starts: `eyJ-eyJ-eyJ…` must not make the search quadratic.
  String.raw`(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*`,
  String.raw`\bgh[pousr]_[A-Za-z0-9]{20,}`,
  String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}`,
  String.raw`\bAKIA[0-9A-Z]{16}`,
  String.raw`\bxox[abprs]-[A-Za-z0-9-]{10,}`,
  String.raw`\bAIza[0-9A-Za-z_-]{30,}`,
];

/**
 * The shortest text any of TOKEN_SOURCES matches (`sk-` and 8 characters; the others need 15 or
 * more): the redactor does not search a shorter string. test/security/secret-patterns.test.ts
 * checks it against every pattern.
 */
export const SHORTEST_TOKEN = 11;

/** Each token's literal heads and the characters of its body (what may follow a head). */
const SHAPES: readonly { readonly heads: readonly string[]; readonly body: RegExp }[] = [
  { heads: ['sk-', 'sk_'], body: /[A-Za-z0-9_*-]/ },
  { heads: ['eyJ'], body: /[A-Za-z0-9_.-]/ },
  { heads: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'], body: /[A-Za-z0-9_]/ },
  { heads: ['AKIA'], body: /[0-9A-Z]/ },
  { heads: ['xoxa-', 'xoxb-', 'xoxp-', 'xoxr-', 'xoxs-'], body: /[A-Za-z0-9-]/ },
  { heads: ['AIza'], body: /[0-9A-Za-z_-]/ },
];
const BEARER_BODY = /[A-Za-z0-9._~+/=-]/;
const BEARER_HEADS = ['Bearer', 'bearer'];
const WORD = /\w/;
const SPACE = /\s/;

/** The end of a text that may be a token: its length, and the body class it goes on with (once its head is complete). */
export interface PartialToken {
  readonly length: number;
  readonly body?: RegExp;
}

/**
 * How many characters at the end of `text` could be the start of a key-shaped token, or one that
 * may still go on: a proper prefix of a head (`s`, `ey`, `Bear`), or a head and any run of its
 * body characters, starting at a word boundary. Looks at the last `limit` characters only, each
 * a bounded number of times, so a hostile stream cannot make it quadratic.
 */
export function partialToken(text: string, limit: number): PartialToken {
  const end = text.length;
  const floor = Math.max(0, end - limit);
  const boundary = (at: number) => at === 0 || !WORD.test(text[at - 1]!);
  let hold = 0;
  let bodyOf: RegExp | undefined;
  for (const head of [...SHAPES.flatMap((shape) => shape.heads), ...BEARER_HEADS]) {
    // A whole `Bearer` is held too: its credential comes only after the whitespace of a later delta.
    const longest = BEARER_HEADS.includes(head) ? head.length : head.length - 1;
    for (let length = Math.min(longest, end - floor); length > hold; length -= 1) {
      if (text.endsWith(head.slice(0, length)) && boundary(end - length)) {
        hold = length;
        break;
      }
    }
  }
  for (const { heads, body } of SHAPES) {
    let run = end;
    while (run > floor && body.test(text[run - 1]!)) run -= 1;
    // The leftmost head inside the trailing run holds the most.
    for (let at = run; at < end && end - at > hold; at += 1) {
      if (boundary(at) && heads.some((head) => text.startsWith(head, at) && end - at >= head.length)) {
        hold = end - at;
        bodyOf = body;
        break;
      }
    }
  }
  let token = end;
  while (token > floor && BEARER_BODY.test(text[token - 1]!)) token -= 1;
  let space = token;
  while (space > floor && SPACE.test(text[space - 1]!)) space -= 1;
  if (space < token || token === end) {
    const at = space - 6;
    if (at >= floor && BEARER_HEADS.some((head) => text.startsWith(head, at)) && boundary(at) && end - at > hold) {
      hold = end - at;
      bodyOf = token < end ? BEARER_BODY : undefined;
    }
  }
  return bodyOf === undefined ? { length: hold } : { length: hold, body: bodyOf };
}

/**
 * Object keys whose values are secrets whatever they look like (`{ "apiKey": "abc" }`,
 * `headers.authorization`). Exact names, so that `inputTokens` or `maxTokens` are not caught.
 */
export const SECRET_KEY =
  /^(api[-_]?key|x-api-key|authorization|proxy-authorization|password|passwd|secret|client[-_]?secret|access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|x-auth-token|session[-_]?token|bearer|cookie|set-cookie|private[-_]?key)$/i;
