/**
 * A typed task's answer as JSON. The answer is the model's whole text, trimmed; one Markdown code
 * fence around it (```` ```json ```` or a bare ```` ``` ````) is taken off, since models add it even
 * when told not to. Nothing more lenient: no JSON picked out of prose, no trailing commas, no
 * comments — those are issues the model is asked to repair.
 */
import type { OutputIssue } from '../contracts/typed-output.js';

const FENCED = /^```(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n?```$/i;

export type ParsedAnswer = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly issue: OutputIssue };

export function parseAnswer(text: string): ParsedAnswer {
  const trimmed = text.trim();
  const body = FENCED.exec(trimmed)?.[1]?.trim() ?? trimmed;
  if (body === '') return { ok: false, issue: { path: '(root)', message: 'the answer is empty: it must be a JSON value' } };
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch (error) {
    return { ok: false, issue: { path: '(root)', message: `the answer is not JSON (${error instanceof Error ? error.message : String(error)})` } };
  }
}
