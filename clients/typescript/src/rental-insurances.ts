/** Guarantees: typed calls over the generated operations, with ETags remembered for If-Match. */
import type { Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/partner-api.js';
import { PartnerApiError, PartnerClientError, UnknownEtagError } from './errors.js';
import type { EtagTracker } from './etags.js';
import {
  callHeaders,
  resultOf,
  writeHeaders,
  type ApiResult,
  type CallOptions,
  type PreconditionedWriteOptions,
  type WriteOptions,
} from './results.js';

type Schemas = components['schemas'];
export type RentalInsurance = Schemas['RentalInsurance'];
export type RentalInsuranceCreate = Schemas['RentalInsuranceCreate'];
export type RentalInsurancePatch = Schemas['RentalInsurancePatch'];
export type RentalInsurancePage = Schemas['RentalInsurancePage'];
export type RentalInsuranceStatus = Schemas['RentalInsuranceStatus'];
export type HistoryEntry = Schemas['HistoryEntry'];
export type HistoryPage = Schemas['HistoryPage'];
export type Signature = Schemas['Signature'];
export type SignaturePage = Schemas['SignaturePage'];
export type SandboxClockAdvance = Schemas['SandboxClockAdvance'];
export type SandboxClock = Schemas['SandboxClock'];
/** Zero-based page and page size of the paged lists (1 to the list's maximum: 200, or fewer for lists of large items; see the contract's *Sizes*). */
export interface PageOptions extends CallOptions {
  page?: number;
  pageSize?: number;
}
export type ListQuery = NonNullable<operations['listRentalInsurances']['parameters']['query']>;

export interface ResourceContext {
  api: Client<paths>;
  etags: EtagTracker;
}

const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };

/** The If-Match to send: the caller's, or the latest ETag seen for the guarantee. */
export function ifMatchFor(etags: EtagTracker, id: number, options: PreconditionedWriteOptions): string {
  const etag = options.ifMatch ?? etags.latest(id);
  if (!etag) throw new UnknownEtagError(id);
  return etag;
}

export function rentalInsurances({ api, etags }: ResourceContext) {
  const id = (value: number) => ({ id: value });
  const tracked = (result: ApiResult<RentalInsurance>) => {
    etags.remember(result.data.id, result.etag);
    return result;
  };

  const resource = {
    async list(query: ListQuery = {}, options: CallOptions = {}): Promise<ApiResult<RentalInsurancePage>> {
      return resultOf(await api.GET('/v1/rental-insurances', { params: { query, header: callHeaders(options) }, signal: options.signal }));
    },

    async create(body: RentalInsuranceCreate, options: WriteOptions = {}): Promise<ApiResult<RentalInsurance>> {
      return tracked(resultOf(await api.POST('/v1/rental-insurances', { params: { header: writeHeaders(options) }, body, signal: options.signal })));
    },

    async get(guaranteeId: number, options: CallOptions = {}): Promise<ApiResult<RentalInsurance>> {
      return tracked(
        resultOf(
          await api.GET('/v1/rental-insurances/{id}', { params: { path: id(guaranteeId), header: callHeaders(options) }, signal: options.signal }),
        ),
      );
    },

    /** The guarantee when it changed since `etag`, undefined when it did not (304: cheap polling). */
    async getIfChanged(guaranteeId: number, etag: string, options: CallOptions = {}): Promise<ApiResult<RentalInsurance> | undefined> {
      const outcome = await api.GET('/v1/rental-insurances/{id}', {
        params: { path: id(guaranteeId), header: { ...callHeaders(options), 'If-None-Match': etag } },
        signal: options.signal,
      });
      return outcome.response.status === 304 ? undefined : tracked(resultOf(outcome));
    },

    /** Merge patch (RFC 7396) with If-Match. A 412 means someone changed it first: see modify(). */
    async patch(guaranteeId: number, patch: RentalInsurancePatch, options: PreconditionedWriteOptions = {}): Promise<ApiResult<RentalInsurance>> {
      const header = { ...writeHeaders(options), 'If-Match': ifMatchFor(etags, guaranteeId, options) };
      return tracked(
        resultOf(
          await api.PATCH('/v1/rental-insurances/{id}', {
            params: { path: id(guaranteeId), header },
            body: patch,
            headers: MERGE_PATCH,
            signal: options.signal,
          }),
        ),
      );
    },

    /**
     * Optimistic concurrency done right: read the guarantee, compute the change from what was read,
     * send it with that ETag; on 412 (changed meanwhile) read again and recompute, with a new
     * Idempotency-Key each time (it is a new logical write). `change` returns undefined for "nothing to do".
     */
    async modify(
      guaranteeId: number,
      change: (current: RentalInsurance) => RentalInsurancePatch | undefined,
      options: { attempts?: number } & CallOptions = {},
    ): Promise<ApiResult<RentalInsurance>> {
      const attempts = options.attempts ?? 3;
      for (let attempt = 1; ; attempt += 1) {
        const current = await resource.get(guaranteeId, options);
        const patch = change(current.data);
        if (patch === undefined) return current;
        try {
          return await resource.patch(guaranteeId, patch, { ...options, ifMatch: current.etag });
        } catch (error) {
          if (!(error instanceof PartnerApiError && error.code === 'precondition_failed') || attempt >= attempts) throw error;
        }
      }
    },

    /** One page of the guarantee's history, oldest first. */
    async historyPage(guaranteeId: number, options: PageOptions = {}): Promise<ApiResult<HistoryPage>> {
      const query = { page: options.page, pageSize: options.pageSize };
      return resultOf(
        await api.GET('/v1/rental-insurances/{id}/history', {
          params: { path: id(guaranteeId), query, header: callHeaders(options) },
          signal: options.signal,
        }),
      );
    },

    /** The whole history, oldest first, read page by page (as many entries as a page holds: 50). */
    async history(guaranteeId: number, options: CallOptions = {}): Promise<HistoryEntry[]> {
      const entries: HistoryEntry[] = [];
      for (let page = 0; ; page += 1) {
        const { data } = await resource.historyPage(guaranteeId, { ...options, page, pageSize: 200 });
        entries.push(...data._embedded.historyEntries);
        if (!data._links.next) return entries;
      }
    },

    async comment(guaranteeId: number, comment: string, options: WriteOptions = {}): Promise<ApiResult<HistoryEntry>> {
      return resultOf(
        await api.POST('/v1/rental-insurances/{id}/comments', {
          params: { path: id(guaranteeId), header: writeHeaders(options) },
          body: { comment },
          signal: options.signal,
        }),
      );
    },

    /** The current signature records (at most 12, so one page of 200 holds them all). */
    async signatures(guaranteeId: number, options: CallOptions = {}): Promise<Signature[]> {
      const query = { page: 0, pageSize: 200 };
      const { data } = resultOf<SignaturePage>(
        await api.GET('/v1/rental-insurances/{id}/signatures', {
          params: { path: id(guaranteeId), query, header: callHeaders(options) },
          signal: options.signal,
        }),
      );
      return data._embedded.signatures;
    },

    /** Accept an `approved` proposal on the tenant's behalf (signatures are then requested). */
    async accept(guaranteeId: number, options: WriteOptions = {}): Promise<ApiResult<RentalInsurance>> {
      return tracked(
        resultOf(
          await api.POST('/v1/rental-insurances/{id}/accept', {
            params: { path: id(guaranteeId), header: writeHeaders(options) },
            signal: options.signal,
          }),
        ),
      );
    },

    /** Refuse an `approved` proposal on the tenant's behalf. */
    async refuse(guaranteeId: number, options: WriteOptions = {}): Promise<ApiResult<RentalInsurance>> {
      return tracked(
        resultOf(
          await api.POST('/v1/rental-insurances/{id}/refuse', {
            params: { path: id(guaranteeId), header: writeHeaders(options) },
            signal: options.signal,
          }),
        ),
      );
    },

    /**
     * Sandbox only (production answers 404): moves this guarantee's clock forward, `{ by: 'P31D' }` or
     * `{ to: '2029-06-02T00:00:00Z' }`, and everything time drives happens to it at once, in order
     * (review, expiry, activation, termination, archiving), stamped with the time it was due.
     */
    async advanceClock(guaranteeId: number, advance: SandboxClockAdvance, options: WriteOptions = {}): Promise<ApiResult<SandboxClock>> {
      const result = resultOf<SandboxClock>(
        await api.POST('/v1/rental-insurances/{id}/advance-clock', {
          params: { path: id(guaranteeId), header: writeHeaders(options) },
          body: advance,
          signal: options.signal,
        }),
      );
      etags.remember(guaranteeId, result.etag);
      return result;
    },

    /**
     * Polls with If-None-Match (a 304 costs almost nothing) until `until` holds for the guarantee,
     * for example a sandbox review: `waitFor(id, (g) => g.status !== 'under_review')`.
     */
    async waitFor(
      guaranteeId: number,
      until: (current: RentalInsurance) => boolean,
      options: { timeoutMs?: number; intervalMs?: number } & CallOptions = {},
    ): Promise<ApiResult<RentalInsurance>> {
      const deadline = Date.now() + (options.timeoutMs ?? 120_000);
      let latest = await resource.get(guaranteeId, options);
      while (!until(latest.data)) {
        if (Date.now() >= deadline) {
          throw new PartnerClientError(
            `rental insurance ${guaranteeId}: condition not met within ${options.timeoutMs ?? 120_000} ms (status ${latest.data.status})`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 2_000));
        latest = (latest.etag ? await resource.getIfChanged(guaranteeId, latest.etag, options) : await resource.get(guaranteeId, options)) ?? latest;
      }
      return latest;
    },
  };
  return resource;
}
