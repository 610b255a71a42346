import pc from 'picocolors';
import type { Colors } from 'picocolors/types.js';
import type { StopReason } from '../contracts/stop.js';
import { EXIT, exitCodeFor } from './exit-codes.js';

/** `850ms`, `4.2s`, `3m05s`, `1h02m`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)}s`;
  const totalSeconds = Math.floor(ms / 1_000);
  if (totalSeconds < 3_600) return `${Math.floor(totalSeconds / 60)}m${String(totalSeconds % 60).padStart(2, '0')}s`;
  const totalMinutes = Math.floor(totalSeconds / 60);
  return `${Math.floor(totalMinutes / 60)}h${String(totalMinutes % 60).padStart(2, '0')}m`;
}

/** `1 turn`, `3 turns`. */
export function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;
}

export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

export function formatUsd(value: number): string {
  return `$${value.toFixed(4)}`;
}

/** `12` or `12/50` when there is a limit. */
export function against(value: string, limit: string | undefined): string {
  return limit === undefined ? value : `${value}/${limit}`;
}

/** A stop reason coloured by what it means: green completed, yellow bound or policy, red error, magenta canceled. */
export function colorReason(reason: StopReason, colors: Colors): string {
  const code = exitCodeFor(reason);
  if (code === EXIT.completed) return colors.green(reason);
  if (code === EXIT.error) return colors.red(reason);
  if (code === EXIT.canceled) return colors.magenta(reason);
  return colors.yellow(reason);
}

/** Colours for a stream: on for a terminal unless NO_COLOR is set, FORCE_COLOR forces them. */
export function colorsFor(stream: { readonly isTTY?: boolean }): Colors {
  const environment = process.env;
  const forced = environment['FORCE_COLOR'] !== undefined && environment['FORCE_COLOR'] !== '0';
  return pc.createColors(forced || (stream.isTTY === true && environment['NO_COLOR'] === undefined && environment['TERM'] !== 'dumb'));
}

export type { Colors };

export function stopMark(reason: StopReason): string {
  const code = exitCodeFor(reason);
  return code === EXIT.completed ? '✓' : code === EXIT.error ? '✗' : code === EXIT.canceled ? '⊘' : '■';
}

/** Local time, to the second: `2026-06-01 14:03:27`. */
export function formatTimestamp(epochMs: number): string {
  const date = new Date(epochMs);
  const two = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}
