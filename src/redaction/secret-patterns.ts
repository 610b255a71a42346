/**
 * What a secret looks like when nobody configured it: key-shaped tokens. Each pattern has a
 * "partial" twin that matches what could still grow into one at the end of streamed text, so a
 * key split across two `message_update` deltas is held back instead of leaking in halves.
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
  String.raw`\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*`,
  String.raw`\bgh[pousr]_[A-Za-z0-9]{20,}`,
  String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}`,
  String.raw`\bAKIA[0-9A-Z]{16}`,
  String.raw`\bxox[abprs]-[A-Za-z0-9-]{10,}`,
  String.raw`\bAIza[0-9A-Za-z_-]{30,}`,
];

/**
 * The end of a text that could be the start of a token above (or one still growing): a prefix of
 * its literal head, or the head and any run of its body characters. Anchored at the end.
 */
export const PARTIAL_TOKEN = new RegExp(
  String.raw`(?:^|[^A-Za-z0-9_])(` +
    [
      String.raw`sk?`,
      String.raw`sk[-_][A-Za-z0-9_*-]*`,
      String.raw`[Bb](?:e(?:a(?:r(?:e(?:r(?:\s+[A-Za-z0-9._~+/=-]*)?)?)?)?)?)?`,
      String.raw`e(?:y(?:J[A-Za-z0-9_.-]*)?)?`,
      String.raw`g(?:h(?:[pousr](?:_[A-Za-z0-9]*)?)?|i(?:t(?:h(?:u(?:b(?:_(?:p(?:a(?:t(?:_[A-Za-z0-9_]*)?)?)?)?)?)?)?)?)?)?`,
      String.raw`A(?:K(?:I(?:A[0-9A-Z]*)?)?|I(?:z(?:a[0-9A-Za-z_-]*)?)?)?`,
      String.raw`x(?:o(?:x(?:[abprs](?:-[A-Za-z0-9-]*)?)?)?)?`,
    ].join('|') +
    ')$',
);

/**
 * Object keys whose values are secrets whatever they look like (`{ "apiKey": "abc" }`,
 * `headers.authorization`). Exact names, so that `inputTokens` or `maxTokens` are not caught.
 */
export const SECRET_KEY =
  /^(api[-_]?key|x-api-key|authorization|proxy-authorization|password|passwd|secret|client[-_]?secret|access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|x-auth-token|session[-_]?token|bearer|cookie|set-cookie|private[-_]?key)$/i;
