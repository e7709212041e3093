/** The first value of the header `name` (lower case) in [name, value] pairs as received (names in any case). */
export function firstHeader(headers: readonly (readonly [string, string])[], name: string): string | undefined {
  return headers.find(([key]) => key.toLowerCase() === name)?.[1];
}
