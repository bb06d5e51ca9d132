/**
 * The kit's HTTP layer: every exchange with the API is recorded under the current step and
 * validated against the contract (status, headers, body); what the step itself expects (a status,
 * a field value) is checked with expect()/check(). A step fails with every problem it found.
 */
import type { Contract } from './contract.js';

export interface Exchange {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  bodyText: string;
  /** The body's bytes as received (a document's, for its digest). */
  bytes: Buffer;
  json: unknown;
  durationMs: number;
}

export interface StepRecord {
  name: string;
  outcome: 'passed' | 'failed' | 'skipped';
  problems: string[];
  exchanges: Array<{ method: string; path: string; status: number; durationMs: number }>;
  durationMs: number;
  note?: string;
}

export interface CallOptions {
  headers?: Record<string, string>;
  body?: unknown;
  /** A multipart/form-data body (fetch writes it and its boundary). */
  form?: FormData;
  contentType?: string;
  /** Statuses this step expects; anything else is a problem of the step. */
  expect?: number[];
  /** Send without the Bearer token (to check the 401 answer). */
  anonymous?: boolean;
}

export class Session {
  readonly baseUrl: string;
  readonly contract: Contract;
  token: string | undefined;
  #step: StepRecord | undefined;

  constructor(baseUrl: string, contract: Contract) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.contract = contract;
  }

  begin(name: string): StepRecord {
    this.#step = { name, outcome: 'passed', problems: [], exchanges: [], durationMs: 0 };
    return this.#step;
  }

  problem(message: string): void {
    this.#step?.problems.push(message);
  }

  /** An exchange made outside call() (the token request), for the report. */
  recordExchange(summary: StepRecord['exchanges'][number]): void {
    this.#step?.exchanges.push(summary);
  }

  check(condition: unknown, message: string): boolean {
    if (!condition) this.problem(message);
    return Boolean(condition);
  }

  /** One request to {base_url}: recorded, validated against the contract, checked against `expect`. */
  async call(method: string, pathAndQuery: string, options: CallOptions = {}): Promise<Exchange> {
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    if (!options.anonymous && this.token) headers['Authorization'] = `Bearer ${this.token}`;
    let body: string | FormData | undefined = options.form;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['Content-Type'] = options.contentType ?? 'application/json';
    }
    const started = Date.now();
    const response = await fetch(`${this.baseUrl}${pathAndQuery}`, { method, headers, body, signal: AbortSignal.timeout(30_000) });
    const bytes = Buffer.from(await response.arrayBuffer());
    const bodyText = bytes.toString('utf8');
    const path = pathAndQuery.split('?')[0]!;
    const exchange: Exchange = {
      method,
      path,
      status: response.status,
      headers: response.headers,
      bodyText,
      bytes,
      json: parse(bodyText),
      durationMs: Date.now() - started,
    };
    this.#step?.exchanges.push({ method, path, status: response.status, durationMs: exchange.durationMs });
    const where = `${method} ${path} -> ${response.status}`;
    for (const problem of this.contract.problemsOf({ method, path, status: response.status, headers: response.headers, bodyText })) {
      this.problem(`${where}: out of contract: ${problem}`);
    }
    if (options.expect && !options.expect.includes(response.status)) {
      this.problem(`${where}: expected ${options.expect.join(' or ')}${errorSummary(exchange)}`);
    }
    return exchange;
  }
}

function parse(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** `: 400 validation_failed: message (details)` for an error body; nothing otherwise. */
function errorSummary(exchange: Exchange): string {
  const body = exchange.json as { code?: unknown; message?: unknown; details?: unknown } | undefined;
  if (!body || typeof body.code !== 'string') return '';
  const details = Array.isArray(body.details) ? ` [${body.details.join('; ')}]` : '';
  return `; the service answered ${body.code}: ${String(body.message)}${details}`;
}

/** A field of a JSON body, for checks (undefined when absent). */
export function field<T = unknown>(json: unknown, ...path: Array<string | number>): T | undefined {
  return path.reduce<unknown>(
    (node, key) => (node === null || typeof node !== 'object' ? undefined : (node as Record<string | number, unknown>)[key]),
    json,
  ) as T | undefined;
}

/** The items of a page's `_embedded` list (empty when the body is not such a page). */
export function embedded(json: unknown, name: string): unknown[] {
  const items = field(json, '_embedded', name);
  return Array.isArray(items) ? items : [];
}
