import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';

/*
 * A provider model written against the AI SDK specification (LanguageModelV4) for tests: each
 * `doStream` call takes the next scripted answer — stream parts, a rejection, or a stream that
 * never ends until its abort signal fires. Every call's options are recorded.
 */

export type MockAnswer =
  | { readonly parts: readonly LanguageModelV4StreamPart[] }
  | { readonly reject: unknown }
  | { readonly hang: true };

export interface MockLanguageModel extends LanguageModelV4 {
  readonly calls: LanguageModelV4CallOptions[];
}

export function mockLanguageModel(answers: readonly MockAnswer[]): MockLanguageModel {
  const queue = [...answers];
  const calls: LanguageModelV4CallOptions[] = [];
  return {
    specificationVersion: 'v4',
    provider: 'mock.chat',
    modelId: 'mock-model',
    supportedUrls: {},
    calls,
    doGenerate: () => Promise.reject(new Error('doGenerate is not used by aiSdkModel')),
    async doStream(options) {
      calls.push(options);
      const answer = queue.shift();
      if (answer === undefined) throw new Error('mock model: no scripted answer left');
      if ('reject' in answer) throw answer.reject;
      if ('hang' in answer) {
        return {
          stream: new ReadableStream<LanguageModelV4StreamPart>({
            start(controller) {
              controller.enqueue({ type: 'stream-start', warnings: [] });
              options.abortSignal?.addEventListener('abort', () => controller.error(options.abortSignal?.reason), { once: true });
            },
          }),
        };
      }
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of answer.parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}

export function usage(input: number, output: number): Extract<LanguageModelV4StreamPart, { type: 'finish' }>['usage'] {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

export function textParts(deltas: readonly string[], finish: 'stop' | 'length' | 'content-filter' | 'error' | 'interrupted' | 'other' = 'stop'): LanguageModelV4StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't1' },
    ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: 'text-delta', id: 't1', delta })),
    { type: 'text-end', id: 't1' },
    { type: 'finish', usage: usage(10, deltas.length), finishReason: { unified: finish, raw: finish } },
  ];
}

export function toolCallParts(calls: readonly { id: string; name: string; input: string }[]): LanguageModelV4StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    ...calls.flatMap((call): LanguageModelV4StreamPart[] => [
      { type: 'tool-input-start', id: call.id, toolName: call.name },
      { type: 'tool-input-delta', id: call.id, delta: call.input },
      { type: 'tool-input-end', id: call.id },
      { type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input },
    ]),
    { type: 'finish', usage: usage(20, 10), finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
  ];
}
