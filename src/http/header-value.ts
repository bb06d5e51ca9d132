/** Reading a request header the same way everywhere (Node gives repeated headers as arrays). */

/** The first value of a request header. */
export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}
