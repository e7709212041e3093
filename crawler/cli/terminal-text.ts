/*
 * What a terminal is shown of text that came from outside (page titles, URLs, snippets, what
 * Redis holds, a server's error text): control characters would be obeyed by the terminal,
 * so an escape sequence in a title could rewrite the screen, set the window title or hide
 * lines. They are shown as U+FFFD instead; newlines and tabs, which our own output uses, stay.
 */

// C0 but tab and newline, DEL, C1, and the bidirectional overrides and isolates that reorder what is shown.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function terminalText(text: string): string {
  return text.replace(CONTROL, '\uFFFD');
}

/** Writes to standard output with every control character from outside made harmless. */
export function writeOut(text: string): void {
  process.stdout.write(terminalText(text));
}

/** Writes to standard error with every control character from outside made harmless. */
export function writeErr(text: string): void {
  process.stderr.write(terminalText(text));
}
