/**
 * What changed between a run's fingerprint and the kernel's taking it up, one line per change
 * (`tool "search": parameters changed (added "limit")`, `model openai/gpt-4.1-mini → openai/gpt-5-mini`),
 * for RunError `workflow_changed` and the `workflow_changed` event. Pure.
 */
import type { ToolPrint, WorkflowFingerprint } from '../contracts/fingerprint.js';

export function fingerprintChanges(before: WorkflowFingerprint, after: WorkflowFingerprint): string[] {
  const changes: string[] = [];
  if (before.model !== after.model) changes.push(`model ${before.model} → ${after.model}`);
  if ((before.planner ?? before.model) !== (after.planner ?? after.model)) changes.push(`planner model ${before.planner ?? before.model} → ${after.planner ?? after.model}`);
  if (before.system !== after.system) changes.push(before.system === null ? 'system prompt added' : after.system === null ? 'system prompt removed' : 'system prompt changed');
  changes.push(...toolChanges(before.tools, after.tools));
  const bounds = keyChanges(before.bounds, after.bounds, (name, from, to) => `${name} ${from ?? 'unset'} → ${to ?? 'unset'}`);
  if (bounds.length > 0) changes.push(`bounds changed (${bounds.join(', ')})`);
  if (before.strategy !== after.strategy) changes.push(`strategy ${before.strategy} → ${after.strategy}`);
  if (before.policy !== after.policy) changes.push(`policy ${before.policy} → ${after.policy}`);
  if (before.guardrails.join('\n') !== after.guardrails.join('\n')) changes.push(`guardrails changed (${before.guardrails.join(', ') || 'none'} → ${after.guardrails.join(', ') || 'none'})`);
  if (before.tasks !== after.tasks) changes.push('task list changed');
  changes.push(...keyChanges(before.extra, after.extra, (name) => `${name} changed`));
  return changes;
}

function toolChanges(before: Readonly<Record<string, ToolPrint>>, after: Readonly<Record<string, ToolPrint>>): string[] {
  const changes: string[] = [];
  for (const name of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    const old = before[name];
    const now = after[name];
    const label = name.startsWith('source:') ? `tool source "${name.slice(7)}"` : `tool "${name}"`;
    if (old === undefined) changes.push(`${label} added`);
    else if (now === undefined) changes.push(`${label} removed`);
    else {
      // The same declared version: its author vouches the change is compatible.
      if (old.version !== undefined && old.version === now.version) continue;
      const what: string[] = [];
      if (old.description !== now.description) what.push('description changed');
      if (old.schema !== now.schema) what.push(`parameters changed (${schemaChange(old, now)})`);
      if (old.version !== now.version) what.push(`version ${old.version ?? 'none'} → ${now.version ?? 'none'}`);
      if (what.length > 0) changes.push(`${label}: ${what.join('; ')}`);
    }
  }
  return changes;
}

function schemaChange(old: ToolPrint, now: ToolPrint): string {
  const added = now.properties.filter((name) => !old.properties.includes(name));
  const removed = old.properties.filter((name) => !now.properties.includes(name));
  const required = now.required.filter((name) => !old.required.includes(name) && !added.includes(name));
  const optional = old.required.filter((name) => !now.required.includes(name) && !removed.includes(name));
  const parts = [
    ...(added.length === 0 ? [] : [`added ${added.map((name) => `"${name}"`).join(', ')}`]),
    ...(removed.length === 0 ? [] : [`removed ${removed.map((name) => `"${name}"`).join(', ')}`]),
    ...required.map((name) => `"${name}" now required`),
    ...optional.map((name) => `"${name}" now optional`),
  ];
  return parts.length === 0 ? 'types or constraints' : parts.join(', ');
}

function keyChanges<T>(before: Readonly<Record<string, T>>, after: Readonly<Record<string, T>>, describe: (name: string, from: T | undefined, to: T | undefined) => string): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .sort()
    .filter((name) => before[name] !== after[name])
    .map((name) => describe(name, before[name], after[name]));
}
