/**
 * What `dualloop init` writes (docs/cli.md): a manifest, the cassette of its scripted model and a
 * tools module, which together run offline at once. The cassette answers in the order the
 * manifest's tasks ask, so the first run ends `goal_achieved`; replacing the `model` block runs the
 * same workflow on a real model.
 */
export const STARTER_MANIFEST = 'dualloop.yaml';
export const STARTER_CASSETTE = 'dualloop.cassette.yaml';
export const STARTER_TOOLS = 'dualloop-tools.mjs';

/** The three files by name; `schemaPath` is the manifest schema relative to the target directory. */
export function starterFiles(schemaPath: string | undefined): Readonly<Record<string, string>> {
  const schema = schemaPath === undefined ? '' : `# yaml-language-server: $schema=${schemaPath}\n#\n`;
  return {
    [STARTER_MANIFEST]: `${schema}# A starter workflow (written by \`dualloop init\`): two tasks, one tool from ${STARTER_TOOLS}
# and the built-in calculator. Run it with:  npx dualloop run ${STARTER_MANIFEST}
# It runs offline on a scripted model (the answers recorded in ${STARTER_CASSETTE}). To run it on
# a real model, replace the \`model\` block with, for example:
#   model: { provider: openai, name: gpt-4.1-mini, apiKeyEnv: OPENAI_API_KEY }
# (add \`baseURL: http://127.0.0.1:11434/v1\` for Ollama or another OpenAI-compatible server).
name: starter

model:
  provider: scripted
  script: ./${STARTER_CASSETTE}

system: |
  You are a careful assistant. Use the tools for every count and every computation,
  then answer in one sentence.

tools:
  builtin: [calculator]
  module: ./${STARTER_TOOLS}

tasks:
  - id: count
    description: 'Count the words in: "Every run ends for a named reason and can be resumed."'
  - id: double
    description: Double the word count.

bounds:
  inner: { maxTurns: 4, maxToolCalls: 4, maxRuntimeMs: 60000 }
  outer: { maxWorkflowSteps: 4, maxSessionRuntimeMs: 300000, maxTokens: 20000, maxCostUsd: 0.1 }

policy:
  allow: [calculator, count_words]
`,
    [STARTER_CASSETTE]: `# The recorded answers of the model for ${STARTER_MANIFEST}, one per model call, in order
# (the ScriptStep format of dualloop/testing: text, toolCalls, usage, delayMs).

# task "count"
- toolCalls:
    - { name: count_words, args: { text: "Every run ends for a named reason and can be resumed." } }
  usage: { inputTokens: 180, outputTokens: 24 }
  delayMs: 150
- text: The sentence has 11 words.
  usage: { inputTokens: 220, outputTokens: 8 }
  delayMs: 150

# task "double"
- toolCalls:
    - { name: calculator, args: { expression: "11 * 2" } }
  usage: { inputTokens: 240, outputTokens: 18 }
  delayMs: 150
- text: Twice the word count is 22.
  usage: { inputTokens: 270, outputTokens: 8 }
  delayMs: 150
`,
    [STARTER_TOOLS]: `// Tools for ${STARTER_MANIFEST} (\`tools.module\`): every export made with defineTool() becomes a
// tool of the run. Plain JavaScript, so \`dualloop run\` imports it as is.
import { defineTool } from 'dualloop';
import { z } from 'zod';

export const countWords = defineTool({
  name: 'count_words',
  description: 'Counts the words of a text (runs of letters, digits and apostrophes).',
  parameters: z.object({ text: z.string().max(100_000) }),
  execute: ({ text }) => ({ words: (text.match(/[\\p{L}\\p{N}']+/gu) ?? []).length }),
});
`,
  };
}
