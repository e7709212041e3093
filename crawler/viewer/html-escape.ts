/** Escaping for HTML that the viewer writes itself: every stored string passes through here. */

const TEXT_SPECIAL = /[&<>]/;
const TEXT_SPECIAL_ALL = /[&<>]/g;
const ATTRIBUTE_SPECIAL = /[&"<>]/;
const ATTRIBUTE_SPECIAL_ALL = /[&"<>]/g;
const ENTITY: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

function entityFor(ch: string): string {
  return ENTITY[ch] as string;
}

/** Text content: no character can open a tag or an entity. */
export function escapeText(text: string): string {
  return TEXT_SPECIAL.test(text) ? text.replace(TEXT_SPECIAL_ALL, entityFor) : text;
}

/** A value written between double quotes. */
export function escapeAttribute(value: string): string {
  return ATTRIBUTE_SPECIAL.test(value) ? value.replace(ATTRIBUTE_SPECIAL_ALL, entityFor) : value;
}
