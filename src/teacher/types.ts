import type { ModelReply, ModelRequest, ModelStep } from '../episode/model.js';

/** The episode's request, step and reply shapes (src/episode/model.ts), as the teachers name them. */
export type TeacherRequest = ModelRequest;
export type TeacherStep = ModelStep;
export type TeacherReply = ModelReply;

export interface Teacher {
  readonly kind: 'replay' | 'openai';
  complete(req: TeacherRequest, step: TeacherStep): Promise<TeacherReply>;
  /**
   * Resolves when every answer received so far is stored (answers are stored off the request's
   * critical path); rejects if a store failed. A part's done marker is written only after this.
   */
  settle?(): Promise<void>;
}
