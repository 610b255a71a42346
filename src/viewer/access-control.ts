/**
 * Who may talk to the viewer and the inspector page (ADR/0101). Two checks on every request:
 * - **Host**: an exact allow-list of `name:port` — `localhost`, `127.0.0.1` and `[::1]` with the
 *   bound port, the bound address itself, the user's `allowedHosts`, and for a wildcard bind
 *   (`0.0.0.0`, `::`) this machine's name and interface addresses. A name that merely resolves to
 *   127.0.0.1 (DNS rebinding: `127.evil.example`, `attacker.test`) is refused.
 * - **Token**, required when the bind is not loopback: `Authorization: Bearer <token>`, a
 *   `?token=` in the URL (the link the command prints), or the cookie set when that link is opened
 *   (so the page's own requests and event streams carry it). Compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { ConfigError } from '../errors.js';

export const TOKEN_COOKIE = 'dualloop_token';

export interface AccessOptions {
  /** Extra host names (without port) the server answers to, e.g. `dev.box.local`. */
  readonly allowedHosts?: readonly string[];
  /** Required when the server binds a non-loopback address; optional otherwise. */
  readonly token?: string;
}

export type AccessVerdict =
  | { readonly ok: true; readonly setCookie?: string }
  | { readonly ok: false; readonly status: 401 | 403; readonly message: string };

/** Whether a bind address reaches this machine only. */
export function isLoopback(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** A random token for a non-loopback bind (the command prints the link that carries it). */
export function createAccessToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * Checks the options before anything listens: a non-loopback bind without a token, or a token or
 * host name that cannot be used, is a ConfigError naming each field.
 */
export function validateAccess(where: string, host: string, options: AccessOptions): void {
  const issues: { path: string; message: string }[] = [];
  if (options.token === undefined && !isLoopback(host)) {
    issues.push({ path: 'token', message: `required when host is not a loopback address (${host}): anyone who can reach the port could read every run` });
  }
  if (options.token !== undefined && !/^[A-Za-z0-9._~-]{16,}$/.test(options.token)) {
    issues.push({ path: 'token', message: 'must be at least 16 characters of letters, digits, ".", "_", "~" or "-"' });
  }
  (options.allowedHosts ?? []).forEach((name, index) => {
    if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)$/.test(name)) issues.push({ path: `allowedHosts.${index}`, message: 'must be a host name or address without port' });
  });
  if (issues.length > 0) throw new ConfigError({ message: `Invalid ${where} options`, issues });
}

/** The request checker of a server bound to `host:port`. */
export function accessChecker(host: string, port: number, options: AccessOptions): (request: IncomingMessage) => AccessVerdict {
  const allowed = allowedHostHeaders(host, port, options.allowedHosts ?? []);
  const expected = options.token === undefined ? undefined : digest(options.token);
  return (request) => {
    const header = request.headers.host?.toLowerCase();
    if (header === undefined || !allowed.has(header)) return { ok: false, status: 403, message: 'forbidden host' };
    if (expected === undefined) return { ok: true };
    const fromQuery = new URL(request.url ?? '/', 'http://viewer').searchParams.get('token');
    const given = bearer(request) ?? fromQuery ?? cookie(request, TOKEN_COOKIE);
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      return { ok: false, status: 401, message: 'an access token is required: open the link the command printed' };
    }
    return fromQuery === null ? { ok: true } : { ok: true, setCookie: `${TOKEN_COOKIE}=${given}; HttpOnly; SameSite=Strict; Path=/` };
  };
}

/** `http://host:port/path` with the token, when there is one, as the link to print. */
export function withToken(url: string, token: string | undefined): string {
  if (token === undefined) return url;
  const parsed = new URL(url);
  parsed.searchParams.set('token', token);
  return parsed.toString();
}

function allowedHostHeaders(host: string, port: number, extra: readonly string[]): Set<string> {
  const names = new Set(['localhost', '127.0.0.1', '[::1]', ...extra.map((name) => name.toLowerCase())]);
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  if (bare === '0.0.0.0' || bare === '::') {
    names.add(hostname().toLowerCase());
    for (const addresses of Object.values(networkInterfaces())) {
      for (const address of addresses ?? []) names.add(address.family === 'IPv6' ? `[${address.address.split('%')[0]}]` : address.address);
    }
  } else {
    names.add(isIP(bare) === 6 ? `[${bare.toLowerCase()}]` : bare.toLowerCase());
  }
  const headers = new Set<string>();
  for (const name of names) {
    headers.add(`${name}:${port}`);
    if (port === 80) headers.add(name);
  }
  return headers;
}

function bearer(request: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

function cookie(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
