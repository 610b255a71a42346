/**
 * docs/diagrams.md read the way someone outside the project reads it: the machines are loaded from
 * the build (`dist/machines/*.js`, what the package ships), every state and every transition is
 * enumerated from `machine.root` (event, guard, target, actions; targetless ones included), and
 * the Markdown is parsed on its own, following only the legend it states. Neither side goes
 * through the project's diagram generator (src/viewer/machine-graph.ts, mermaid.ts), so a
 * transition the generator leaves out, or a format the legend does not explain, fails here.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIAGRAMS = readFileSync(`${ROOT}docs/diagrams.md`, 'utf8');

interface StateView {
  readonly key: string;
  readonly path: readonly string[];
  readonly type: string;
  readonly states: Readonly<Record<string, StateView>>;
  readonly entry: readonly unknown[];
  readonly exit: readonly unknown[];
  readonly invoke: readonly { readonly id: string }[];
  readonly transitions: ReadonlyMap<string, readonly TransitionView[]>;
  readonly always?: readonly TransitionView[];
}

interface TransitionView {
  readonly eventType: string;
  readonly guard: unknown;
  readonly target?: readonly StateView[];
  readonly actions: readonly unknown[];
}

/** One transition as a line both sides can write: `source --event (guard)--> target / actions`. */
type Line = string;
const line = (source: string, event: string, guard: string, target: string, actions: string): Line =>
  `${source} --${event}${guard === '' ? '' : ` (${guard})`}--> ${target} / ${actions}`;
/** Where a transition that has no target goes: nowhere (the machine stays in its state). */
const STAYS = '(stays)';
/** The source of a transition declared on the machine itself: it applies from any state. */
const ANY = '(any)';

async function loadBuiltMachine(file: string, name: string): Promise<{ root: StateView }> {
  const module = (await import(pathToFileURL(`${ROOT}dist/machines/${file}`).href)) as Record<string, { root: StateView }>;
  return module[name]!;
}

/** The legend of docs/diagrams.md: `X done`, `X error`, `after X`, `always`. */
function eventInWords(eventType: string): string {
  if (eventType === '') return 'always';
  return eventType
    .replace(/^xstate\.done\.actor\.(.+)$/, '$1 done')
    .replace(/^xstate\.error\.actor\.(.+)$/, '$1 error')
    .replace(/^xstate\.after\.([^.]+)\..*$/, 'after $1');
}

function nameOf(step: unknown): string | undefined {
  if (typeof step === 'string') return step;
  if (typeof step === 'object' && step !== null && typeof (step as { type?: unknown }).type === 'string') return (step as { type: string }).type;
  const { id, sendId } = step as { id?: unknown; sendId?: unknown };
  // XState's own timer for a delayed transition: no definition writes it.
  if ([id, sendId].some((value) => typeof value === 'string' && value.startsWith('xstate.after.'))) return undefined;
  return 'inline';
}

const names = (steps: readonly unknown[]) => steps.map(nameOf).filter((name) => name !== undefined).join(', ');

interface Enumerated {
  readonly states: string[];
  readonly transitions: Line[];
  readonly entry: Map<string, string>;
  readonly exit: Map<string, string>;
  readonly invokes: Map<string, string>;
}

function enumerate(root: StateView): Enumerated {
  const found: Enumerated = { states: [], transitions: [], entry: new Map(), exit: new Map(), invokes: new Map() };
  const visit = (node: StateView) => {
    const source = node.path.length === 0 ? ANY : node.key;
    if (node.path.length > 0) {
      found.states.push(`${node.path.join('.')}:${node.type}`);
      if (node.entry.length > 0) found.entry.set(node.key, names(node.entry));
      if (node.exit.length > 0) found.exit.set(node.key, names(node.exit));
      if (node.invoke.length > 0) found.invokes.set(node.key, node.invoke.map((actor) => actor.id).join(', '));
    }
    for (const transition of [...[...node.transitions.values()].flat(), ...(node.always ?? [])]) {
      const target = transition.target === undefined || transition.target.length === 0 ? STAYS : transition.target.map((state) => state.key).join(', ');
      found.transitions.push(line(source, eventInWords(transition.eventType), transition.guard === undefined ? '' : (nameOf(transition.guard) ?? ''), target, names(transition.actions)));
    }
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(root);
  return found;
}

/** A label as the legend gives it: `event (guard) / action, action`. */
function parseLabel(label: string): { event: string; guard: string; actions: string } {
  const match = /^(.+?)(?: \(([^)]+)\))?(?: \/ (.+))?$/.exec(label.trim())!;
  return { event: match[1]!, guard: match[2] ?? '', actions: match[3] ?? '' };
}

/** One machine's section of docs/diagrams.md, parsed from its Mermaid chart and its state table. */
function parseSection(title: string): Enumerated {
  const section = DIAGRAMS.split(/^## /m).find((part) => part.startsWith(title));
  if (section === undefined) throw new Error(`docs/diagrams.md has no section "${title}"`);
  const chart = /```mermaid\n([\s\S]*?)```/.exec(section)![1]!.split('\n').map((text) => text.trim());
  const found: Enumerated = { states: [], transitions: [], entry: new Map(), exit: new Map(), invokes: new Map() };
  let note: { state: string; heading: string } | undefined;
  for (const text of chart) {
    let match: RegExpExecArray | null;
    if ((match = /^note (?:left|right) of (\w+)$/.exec(text)) !== null) note = { state: match[1]!, heading: '' };
    else if (text === 'end note') note = undefined;
    else if (note !== undefined && note.heading === '') note.heading = text;
    else if (note !== undefined) {
      // A note lists transitions declared on the machine: into its state, or (the other heading) staying put.
      const { event, guard, actions } = parseLabel(text);
      const staying = /without leaving/.test(note.heading);
      found.transitions.push(line(ANY, event, guard, staying ? STAYS : note.state, actions));
    } else if ((match = /^(\w+) --> (\w+) : (.+)$/.exec(text)) !== null) {
      const { event, guard, actions } = parseLabel(match[3]!);
      found.transitions.push(line(match[1]!, event, guard, match[2]!, actions));
    } else if ((match = /^(\w+) : entry \/ (.+)$/.exec(text)) !== null) found.entry.set(match[1]!, match[2]!);
    else if ((match = /^(\w+) : exit \/ (.+)$/.exec(text)) !== null) found.exit.set(match[1]!, match[2]!);
    else if ((match = /^(\w+) : on (.+)$/.exec(text)) !== null) {
      const { event, guard, actions } = parseLabel(match[2]!);
      found.transitions.push(line(match[1]!, event, guard, STAYS, actions));
    }
  }
  for (const row of section.matchAll(/^\| `([\w.]+)` \| ([^|]+) \|.*\| ([^|]*) \|$/gm)) {
    found.states.push(`${row[1]}:${row[2]!.split(',')[0]!.trim()}`);
    const invoked = [...row[3]!.matchAll(/`(\w+)`/g)].map((actor) => actor[1]).join(', ');
    if (invoked !== '') found.invokes.set(row[1]!.split('.').at(-1)!, invoked);
  }
  return found;
}

describe.each([
  { title: 'Outer loop', file: 'workflow.machine.js', name: 'workflowMachine' },
  { title: 'Inner loop', file: 'turn.machine.js', name: 'turnMachine' },
])('docs/diagrams.md, $title, against $file from the build', ({ title, file, name }) => {
  it('has every state, with its type, its entry and exit actions and what it invokes', async () => {
    const machine = enumerate((await loadBuiltMachine(file, name)).root);
    const docs = parseSection(title);
    expect(docs.states.sort()).toEqual(machine.states.sort());
    expect(Object.fromEntries(docs.entry)).toEqual(Object.fromEntries(machine.entry));
    expect(Object.fromEntries(docs.exit)).toEqual(Object.fromEntries(machine.exit));
    expect(Object.fromEntries(docs.invokes)).toEqual(Object.fromEntries(machine.invokes));
  });

  it('has every transition (event, guard, target, actions), those that change no state included, and no other', async () => {
    const machine = enumerate((await loadBuiltMachine(file, name)).root);
    const docs = parseSection(title);
    expect(machine.transitions.length).toBeGreaterThan(15);
    expect(docs.transitions.sort()).toEqual(machine.transitions.sort());
  });
});
