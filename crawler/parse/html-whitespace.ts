/** HTML whitespace, control characters, and the Unicode spaces (nbsp included) that separate words. */
export function isSpace(c: number): boolean {
  if (c <= 0x20) return true;
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** The words of `s` joined by single spaces, the HTML whitespace around and between them dropped. */
export function collapseWhitespace(s: string): string {
  let out = '';
  let i = 0;
  const n = s.length;
  while (i < n) {
    while (i < n && isSpace(s.charCodeAt(i))) i++;
    if (i >= n) break;
    const start = i;
    while (i < n && !isSpace(s.charCodeAt(i))) i++;
    out = out === '' ? s.slice(start, i) : out + ' ' + s.slice(start, i);
  }
  return out;
}
