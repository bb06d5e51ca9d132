/**
 * Deprecation notices. The partner document asks integrations to log or alert on `Deprecation`
 * (RFC 9745) and `Sunset` (RFC 8594): a deprecated operation sends them on every response from the
 * day its deprecation is announced, months before it stops answering. Every response that carries
 * either header becomes a DeprecationNotice for the `onDeprecation` option; without that option the
 * client warns on the console once per operation, so the warning is never silently lost.
 */

export interface DeprecationNotice {
  method: string;
  /** The request's path, e.g. `/rental-guarantee/v1/rental-insurances/1045`. */
  path: string;
  status: number;
  /** When the operation was or will be deprecated (`Deprecation: @<unix seconds>`); undefined if unparsable. */
  deprecatedAt: Date | undefined;
  /** When it stops answering (`Sunset: <HTTP-date>`); undefined when absent or unparsable. */
  sunsetAt: Date | undefined;
  /** Where the change and its replacement are described (`Link` with `rel="deprecation"` or `rel="sunset"`). */
  links: string[];
  /** The raw header values, for logs. */
  headers: { deprecation: string | null; sunset: string | null };
  correlationId: string | undefined;
}

export type DeprecationHandler = (notice: DeprecationNotice) => void;

/** The notice a response carries, or undefined when it has neither header. */
export function deprecationOf(request: Request, response: Response): DeprecationNotice | undefined {
  const deprecation = response.headers.get('deprecation');
  const sunset = response.headers.get('sunset');
  if (deprecation === null && sunset === null) return undefined;
  return {
    method: request.method,
    path: new URL(request.url).pathname,
    status: response.status,
    deprecatedAt: deprecation === null ? undefined : structuredDate(deprecation),
    sunsetAt: sunset === null ? undefined : dateOf(Date.parse(sunset)),
    links: relationLinks(response.headers.get('link'), ['deprecation', 'sunset']),
    headers: { deprecation, sunset },
    correlationId: response.headers.get('x-correlation-id') ?? request.headers.get('x-correlation-id') ?? undefined,
  };
}

/** RFC 9745's structured-field date `@<seconds>`; undefined for anything else. */
function structuredDate(value: string): Date | undefined {
  const match = /^@(-?\d{1,15})$/.exec(value.trim());
  return match ? dateOf(Number(match[1]) * 1000) : undefined;
}

const dateOf = (ms: number) => (Number.isNaN(ms) ? undefined : new Date(ms));

/** The targets of `Link` entries whose `rel` names one of `relations` (RFC 8288). */
export function relationLinks(header: string | null, relations: string[]): string[] {
  if (!header) return [];
  const links: string[] = [];
  for (const match of header.matchAll(/<([^>]*)>([^<]*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;,\s]+))/i.exec(match[2]!);
    const names = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (names.some((name) => relations.includes(name))) links.push(match[1]!);
  }
  return links;
}

/** The default handler: one console warning per method and path shape (ids folded) and header values. */
export function warnOncePerOperation(): DeprecationHandler {
  const seen = new Set<string>();
  return (notice) => {
    const shape = notice.path.replace(/\/\d+(?=\/|$)/g, '/{id}');
    const key = `${notice.method} ${shape} ${notice.headers.deprecation} ${notice.headers.sunset}`;
    if (seen.has(key)) return;
    seen.add(key);
    const sunset = notice.sunsetAt ? `; it stops answering on ${notice.sunsetAt.toISOString()}` : '';
    const where = notice.links.length > 0 ? ` See ${notice.links.join(', ')}.` : '';
    console.warn(`Rental Guarantee API: ${notice.method} ${shape} is deprecated${sunset}.${where} (onDeprecation replaces this warning)`);
  };
}
