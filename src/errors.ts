/**
 * Errors with stable codes and exit codes. Callers decide what to do from the class or the code,
 * never from the message text. Only the CLI entry point turns them into an exit code.
 */
export type ErrorCode =
  | 'HSA_USAGE'
  | 'HSA_UNREADABLE'
  | 'HSA_BAD_HARNESS'
  | 'HSA_BAD_RECORD'
  | 'HSA_BAD_CONFIG'
  | 'HSA_BAD_PLUGIN'
  | 'HSA_TRANSFORM_REFUSED'
  | 'HSA_RENDER'
  | 'HSA_OUTPUT'
  | 'HSA_TEACHER_UNAVAILABLE'
  | 'HSA_TEACHER_REQUEST'
  | 'HSA_TEACHER_FATAL'
  | 'HSA_CACHE_MISS'
  | 'HSA_INTERRUPTED'
  | 'HSA_INTERNAL';

export class HsaError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: number;
  constructor(code: ErrorCode, message: string, exitCode = 1) {
    super(message);
    this.name = 'HsaError';
    this.code = code;
    this.exitCode = exitCode;
  }
}

/** Wrong flags or arguments: exit 2. */
export class UsageError extends HsaError {
  constructor(message: string) {
    super('HSA_USAGE', message, 2);
    this.name = 'UsageError';
  }
}

/** An input file or folder that cannot be read at all: exit 2. */
export class UnreadableInputError extends HsaError {
  constructor(message: string) {
    super('HSA_UNREADABLE', message, 2);
    this.name = 'UnreadableInputError';
  }
}

/** An hsa.yaml (or another config file) that does not parse or fit its schema: exit 2. */
export class ConfigError extends HsaError {
  constructor(message: string) {
    super('HSA_BAD_CONFIG', message, 2);
    this.name = 'ConfigError';
  }
}

/** A template slot with no value, or another failure to render a harness state. */
export class RenderError extends HsaError {
  readonly path: string;
  constructor(path: string, message: string) {
    super('HSA_RENDER', `${path}: ${message}`, 1);
    this.name = 'RenderError';
    this.path = path;
  }
}
