import { z } from 'zod';
import { lazySchema } from '../contracts/lazy-schema.js';
import { MessageSchema } from '../contracts/message-schema.js';
import type { Message } from '../contracts/messages.js';
import { EngineError } from '../errors.js';
import type { EngineState } from './types.js';

/** Current version of the engine state format; a newer one is refused, never guessed at. */
export const ENGINE_STATE_VERSION = 1;

export const MessagesSchema = lazySchema(() => z.array(MessageSchema()));

const StateSchema = lazySchema(() => z.object({
  engineId: z.string(),
  version: z.number().int().positive(),
  messages: MessagesSchema(),
  modelCalls: z.number().int().nonnegative(),
}));

export function engineState(engineId: string, messages: readonly Message[], modelCalls: number): EngineState {
  return { engineId, version: ENGINE_STATE_VERSION, messages, modelCalls };
}

/**
 * Reads a state for `engineId`. The engine id is checked first, then the version, so that a state
 * from another engine or a newer dualloop is refused for that reason, whatever its shape.
 */
export function parseEngineState(raw: unknown, engineId: string): EngineState {
  const fields = typeof raw === 'object' && raw !== null ? (raw as { engineId?: unknown; version?: unknown }) : {};
  if (typeof fields.engineId === 'string' && fields.engineId !== engineId) {
    throw new EngineError({
      code: 'engine_state_mismatch',
      engineId,
      message: `engine "${engineId}" cannot load a state saved by engine "${fields.engineId}"; states are not portable between engines`,
    });
  }
  if (typeof fields.version === 'number' && fields.version > ENGINE_STATE_VERSION) {
    throw new EngineError({
      code: 'engine_state_invalid',
      engineId,
      message: `engine "${engineId}" cannot load a state of version ${fields.version} (this dualloop reads up to version ${ENGINE_STATE_VERSION})`,
    });
  }
  const parsed = StateSchema().safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(state)'}: ${issue.message}`).join('; ');
    throw new EngineError({ code: 'engine_state_invalid', engineId, message: `engine "${engineId}" cannot load this state: ${issues}`, cause: parsed.error });
  }
  return parsed.data as EngineState;
}
