/**
 * How many items, and how many bytes of them, one page of each listing may hold, as its contract
 * declares them: the `maxItems` (and `x-max-bytes`, for a page cut by size) of the list under
 * `_embedded` in the operation's 200 answer. The service pages with these numbers (http/paging.ts,
 * the event feed), so that a list's bound is written once, in the document, where the worst case
 * of every answer is computed from it (answer-size.ts, answer-cost.ts).
 */
import type { OpenApiDocument } from './load-contract';

export interface ListBounds {
  /** Items of one page at most. */
  items: number;
  /** Bytes of a page's items as JSON at most (commas included), when the page is cut by size. */
  bytes?: number;
}

type Node = Record<string, unknown>;

/** A listing: its operation and the schema of the list its 200 answer embeds (resolved). */
export interface EmbeddedList {
  operationId: string;
  operation: Node;
  list: Node;
  bounds: ListBounds;
}

/** Per operationId, for every operation whose 200 answer embeds a list. */
export function listBoundsOf(document: OpenApiDocument): Map<string, ListBounds> {
  return new Map(embeddedListsOf(document).map((found) => [found.operationId, found.bounds]));
}

/** Every operation whose 200 answer embeds one list with its `maxItems`. */
export function embeddedListsOf(document: OpenApiDocument): EmbeddedList[] {
  const resolve = resolverOf(document);
  const found: EmbeddedList[] = [];
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem)) {
      if (!isNode(operation) || typeof operation['operationId'] !== 'string') continue;
      const answer = resolve((operation['responses'] as Node | undefined)?.['200']);
      const schema = resolve(((answer?.['content'] as Node | undefined)?.['application/json'] as Node | undefined)?.['schema']);
      const embedded = resolve((schema?.['properties'] as Node | undefined)?.['_embedded']);
      const lists = Object.values((embedded?.['properties'] as Node | undefined) ?? {}).map(resolve);
      const list = lists.length === 1 ? lists[0] : undefined;
      if (!list || typeof list['maxItems'] !== 'number') continue;
      const bytes = list['x-max-bytes'];
      found.push({
        operationId: operation['operationId'],
        operation,
        list,
        bounds: { items: list['maxItems'], ...(typeof bytes === 'number' ? { bytes } : {}) },
      });
    }
  }
  return found;
}

/** Follows local `$ref`s (`#/...`) to the node they name. */
export function resolverOf(document: OpenApiDocument): (node: unknown) => Node | undefined {
  return (node) => {
    let current = node;
    for (let hops = 0; hops < 20 && isNode(current) && typeof current['$ref'] === 'string'; hops++) {
      current = (current['$ref'] as string)
        .slice(2)
        .split('/')
        .reduce<unknown>((at, key) => (isNode(at) ? at[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), document);
    }
    return isNode(current) ? current : undefined;
  };
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
