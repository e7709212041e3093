/** The first value of the header `name` (lower case) in [name, value] pairs as received (names in any case). */
export function firstHeader(headers: readonly (readonly [string, string])[], name: string): string | undefined {
  return headers.find(([key]) => key.toLowerCase() === name)?.[1];
}

/** Lowercased names; repeated fields joined with ', ' (the crawler's view of a response's headers). */
export function headerMap(rawHeaders: readonly (readonly [string, string])[]): Record<string, string> {
  // No prototype: a server may send a header named __proto__ or constructor.
  const headers = Object.create(null) as Record<string, string>;
  for (const [name, value] of rawHeaders) {
    const key = name.toLowerCase();
    const previous = headers[key];
    headers[key] = previous === undefined ? value : `${previous}, ${value}`;
  }
  return headers;
}
