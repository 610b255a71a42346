export type McpErrorCode = 'server_start_failed' | 'server_closed';

/**
 * An MCP server could not be used: it did not start (bad command, exit, handshake or `tools/list`
 * failure, start timeout) or the tool set was closed. Carries the server's name; the message has
 * the tail of the server's stderr, secrets removed.
 */
export class McpError extends Error {
  readonly code: McpErrorCode;
  readonly server: string;

  constructor(options: { code: McpErrorCode; server: string; message: string; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.name = 'McpError';
    this.code = options.code;
    this.server = options.server;
  }
}
