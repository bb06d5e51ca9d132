/**
 * The most bytes each operation's answer may take, for the request that asks for it, from the
 * contract alone (issue 34): the worst case of its 2xx answers (answer-size.ts); for a listing,
 * the worst case of a page of the size asked: the answer around the list, plus the items asked
 * (the query's `pageSize` or `limit`, else the parameter's declared default, clamped to 1..the
 * list's `maxItems`) at their worst, within the list's `x-max-bytes`. Computed once per document at
 * start-up: a request's cost is then a lookup and a multiplication, never a walk. The service's own
 * files (`x-static-answer`) and answers without a body cost nothing here; a streamed body (a
 * document's bytes) costs what a process holds of it, STREAMED_ANSWER_BYTES, not its length.
 */
import { isStreamedBody, STREAMED_ANSWER_BYTES, worstCaseOf } from './answer-size';
import { embeddedListsOf, resolverOf, type EmbeddedList } from './list-bounds';
import type { OpenApiDocument } from './load-contract';

/** The most bytes of an operation's answer to a request with this validated query. */
export type AnswerCost = (query: Record<string, unknown>) => number;

/** The query parameters that say how many items a page holds (paged lists, and the cursor lists). */
const COUNT_PARAMETERS = new Set(['pageSize', 'limit']);
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

type Node = Record<string, unknown>;

/** Per operationId, for every operation with a 2xx answer that has a body. */
export function answerCostsOf(document: OpenApiDocument): Map<string, AnswerCost> {
  const worst = worstCaseOf(document);
  const resolve = resolverOf(document);
  const lists = new Map(embeddedListsOf(document).map((found) => [found.operationId, found]));
  const costs = new Map<string, AnswerCost>();
  for (const pathItem of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = resolve(pathItem[method]);
      const operationId = operation?.['operationId'];
      if (!operation || typeof operationId !== 'string') continue;
      const list = lists.get(operationId);
      // The largest 2xx answer besides a listing's page, and the page at its largest.
      let other = 0;
      let page: number | undefined;
      for (const [status, reference] of Object.entries((operation['responses'] as Node | undefined) ?? {})) {
        const response = resolve(reference);
        if (!status.startsWith('2') || !response || response['x-static-answer'] === true) continue;
        for (const [mediaType, media] of Object.entries((response['content'] as Node | undefined) ?? {})) {
          const schema = (media as Node)['schema'];
          const bytes = isStreamedBody(mediaType, schema, resolve) ? STREAMED_ANSWER_BYTES : worst(schema);
          if (list && status === '200' && mediaType === 'application/json') page = bytes;
          else other = Math.max(other, bytes);
        }
      }
      if (list && page !== undefined) costs.set(operationId, pageCost(list, page, other, worst, countParameter(operation, pathItem, resolve)));
      else if (other > 0) costs.set(operationId, () => other);
    }
  }
  return costs;
}

interface CountParameter {
  name: string;
  /** Items of a page when the query does not say (the parameter's declared default). */
  fallback: number;
}

/** A page of `n` items costs what is around the list, plus `n` items at their worst with their commas. */
function pageCost(list: EmbeddedList, largest: number, other: number, worst: (schema: unknown) => number, count?: CountParameter): AnswerCost {
  const { items: maxItems, bytes: maxBytes = Infinity } = list.bounds;
  const item = worst(list.list['items']);
  const itemsOf = (n: number) => Math.min(n * item + Math.max(n - 1, 0), maxBytes);
  const around = largest - itemsOf(maxItems);
  if (!count) return () => Math.max(other, largest);
  const fallback = clamp(count.fallback, maxItems);
  return (query) => {
    const asked = query[count.name];
    const n = typeof asked === 'number' && Number.isFinite(asked) ? clamp(Math.trunc(asked), maxItems) : fallback;
    return Math.max(other, around + itemsOf(n));
  };
}

function countParameter(operation: Node, pathItem: Node, resolve: (node: unknown) => Node | undefined): CountParameter | undefined {
  const parameters = [...((pathItem['parameters'] as unknown[] | undefined) ?? []), ...((operation['parameters'] as unknown[] | undefined) ?? [])];
  for (const reference of parameters) {
    const parameter = resolve(reference);
    const name = parameter?.['name'];
    if (parameter?.['in'] !== 'query' || typeof name !== 'string' || !COUNT_PARAMETERS.has(name)) continue;
    const declared = resolve(parameter['schema'])?.['default'];
    return { name, fallback: typeof declared === 'number' ? declared : Infinity };
  }
  return undefined;
}

function clamp(n: number, maxItems: number): number {
  return Math.min(Math.max(n, 1), maxItems);
}
