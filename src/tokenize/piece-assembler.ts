import { promptTextPieces } from '../harness/render.js';
import { callText, type Qwen3Sink } from './qwen3-template.js';

/** What the assembler asks of the token counter (TokenCounter is one). */
export interface PieceCounter {
  cutBetween(a: string, b: string): boolean;
  isSpecial(token: string): boolean;
  countPiece(s: string): number;
  countPair(a: string, b: string): number;
  countTools(known: { text: string; n: number | null }): number;
}

/**
 * Counts the pieces of a native walk (see TokenCounter): pieces are collected into a group until a
 * cut — an added token the template writes, or a line break followed by a character that starts a
 * pre-token — and each group is counted by its pieces.
 */
export class Assembler implements Qwen3Sink {
  private n = 0;
  /** The pieces since the last cut: group[0 .. size). */
  private readonly group: string[] = [];
  private size = 0;

  constructor(
    private readonly c: PieceCounter,
    private readonly toolList: { text: string; n: number | null } | null,
  ) {}

  text(s: string): void {
    if (s === '') return;
    if (this.size > 0 && this.c.cutBetween(this.group[this.size - 1]!, s)) this.flush();
    this.group[this.size++] = s;
  }

  special(token: string): void {
    if (!this.c.isSpecial(token)) return this.text(token);
    this.flush();
    this.n++;
  }

  system(message: object, content: string): void {
    const parts = promptTextPieces(message);
    if (parts === undefined) return this.text(content);
    for (const p of parts) this.text(p);
  }

  tools(text: string): void {
    // The list is followed by the next block's <|im_start|> (or the end): when a cut precedes it, it is a group of its own.
    if (this.toolList && this.toolList.text === text && (this.size === 0 || this.c.cutBetween(this.group[this.size - 1]!, text))) {
      this.flush();
      this.n += this.c.countTools(this.toolList);
    } else this.text(text);
  }

  call(name: string, args: unknown): void {
    // Between <tool_call> and </tool_call>: a group of its own when both are added tokens.
    if (this.size === 0 && this.c.isSpecial('<tool_call>') && this.c.isSpecial('</tool_call>')) this.n += this.c.countPiece(callText(name, args, 'python'));
    else this.text(callText(name, args, 'python'));
  }

  end(): number {
    this.flush();
    return this.n;
  }

  private flush(): void {
    const g = this.group;
    if (this.size === 1) this.n += this.c.countPiece(g[0]!);
    else if (this.size === 2) this.n += this.c.countPair(g[0]!, g[1]!);
    else if (this.size > 2) {
      let t = '';
      for (let i = 0; i < this.size; i++) t += g[i];
      this.n += this.c.countPiece(t);
    }
    this.size = 0;
  }
}
