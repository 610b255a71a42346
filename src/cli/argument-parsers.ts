import { InvalidArgumentError } from 'commander';

/** The command's option value parsers: each throws commander's InvalidArgumentError naming what is expected. */
export function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || parsed <= 0) throw new InvalidArgumentError('must be a positive integer');
  return parsed;
}

export function integer(value: string): number {
  const parsed = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed)) throw new InvalidArgumentError('must be an integer');
  return parsed;
}

export function positiveNumber(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError('must be a positive number');
  return parsed;
}

export function portNumber(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || parsed > 65_535) throw new InvalidArgumentError('must be a port number (0-65535; 0 picks a free one)');
  return parsed;
}

export function webSocketUrl(value: string): string {
  if (!URL.canParse(value) || !['ws:', 'wss:'].includes(new URL(value).protocol)) throw new InvalidArgumentError('must be a WebSocket URL (ws://host:port or wss://…)');
  return value;
}
