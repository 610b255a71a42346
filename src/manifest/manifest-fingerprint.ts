/**
 * What a manifest adds to its workflow's fingerprint (docs/operations.md): the content hashes of
 * its tools module and its model's cassette, of its declarative policy, and of its agents and
 * their cassettes (ADR/0481) — the code and data a deploy may change while the manifest's other
 * fields stay the same.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { LoadedManifest } from './load-manifest.js';

const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');

export async function manifestFingerprint(loaded: LoadedManifest): Promise<Record<string, string>> {
  const { manifest, directory } = loaded;
  const items: Record<string, string> = {};
  const read = async (path: string) => sha256(await readFile(resolve(directory, path)).catch(() => Buffer.from(`unreadable: ${path}`)));
  if (manifest.tools?.module !== undefined) items['tools module'] = await read(manifest.tools.module);
  if (manifest.model.provider === 'scripted') items.cassette = await read(manifest.model.script);
  if (manifest.policy !== undefined) items['declarative policy'] = sha256(JSON.stringify(manifest.policy));
  if (manifest.agents !== undefined) items.agents = sha256(JSON.stringify(manifest.agents));
  for (const [name, agent] of Object.entries(manifest.agents ?? {})) {
    if (agent.model?.provider === 'scripted') items[`cassette of agent ${name}`] = await read(agent.model.script);
  }
  return items;
}
