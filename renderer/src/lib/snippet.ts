import { MARK_END, MARK_START } from '../../../crawler/protocol/api.ts';

export interface SnippetPart {
  text: string;
  marked: boolean;
}

/**
 * Splits a search snippet into plain and matched parts at the private-use marks. A mark
 * left open runs to the end; a stray closing mark is dropped; empty parts are left out
 * and neighbours of the same kind are joined, so the UI can render parts as they come.
 */
export function splitSnippet(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  let marked = false;
  let text = '';
  const flush = (): void => {
    if (text === '') return;
    const last = parts.at(-1);
    if (last !== undefined && last.marked === marked) last.text += text;
    else parts.push({ text, marked });
    text = '';
  };
  for (const char of snippet) {
    if (char === MARK_START || char === MARK_END) {
      flush();
      marked = char === MARK_START;
    } else {
      text += char;
    }
  }
  flush();
  return parts;
}
