/**
 * The model attributes every model-facing span carries (ADR/0340): `gen_ai.provider.name` as the
 * GenAI semantic conventions name the provider, `gen_ai.request.model`, and the adapter's own
 * provider id in `dualloop.model.provider`.
 *
 * The conventions list well-known provider names that MUST be used when one applies (`anthropic`,
 * `aws.bedrock`, `gcp.vertex_ai`…). AI SDK provider models name themselves `<provider>.<api>`
 * (`anthropic.messages`, `google.vertex.chat`, `amazon-bedrock`), so the id is matched by its
 * leading segments. An id that matches none (a custom or OpenAI-compatible endpoint such as
 * `local.chat`, the scripted model) is kept as it is: the conventions allow a custom value.
 */

/** Leading id segments → well-known value, the more specific first (the first match wins). */
const WELL_KNOWN: readonly (readonly [prefix: string, name: string])[] = [
  ['google.vertex', 'gcp.vertex_ai'],
  ['vertex', 'gcp.vertex_ai'],
  ['google', 'gcp.gemini'],
  ['amazon-bedrock', 'aws.bedrock'],
  ['bedrock', 'aws.bedrock'],
  ['azure-openai', 'azure.ai.openai'],
  ['azure', 'azure.ai.openai'],
  ['mistral', 'mistral_ai'],
  ['xai', 'x_ai'],
  ['moonshotai', 'moonshot_ai'],
  ['anthropic', 'anthropic'],
  ['openai', 'openai'],
  ['cohere', 'cohere'],
  ['deepseek', 'deepseek'],
  ['groq', 'groq'],
  ['perplexity', 'perplexity'],
];

/** `gen_ai.provider.name` for a model adapter's provider id. */
export function genAiProviderName(provider: string): string {
  const id = provider.toLowerCase();
  for (const [prefix, name] of WELL_KNOWN) {
    if (id === prefix || id.startsWith(`${prefix}.`)) return name;
  }
  return provider;
}

/** The attributes naming the model, for the workflow, agent and chat spans. */
export function modelAttributes(model: { readonly provider: string; readonly modelId: string }): Record<string, string> {
  return {
    'gen_ai.provider.name': genAiProviderName(model.provider),
    'gen_ai.request.model': model.modelId,
    'dualloop.model.provider': model.provider,
  };
}
