/** Co-tenants of a guarantee, identified by CPF/CNPJ. Every write needs If-Match and answers the whole guarantee. */
import type { components } from './generated/partner-api.js';
import { ifMatchFor, type RentalInsurance, type ResourceContext } from './rental-insurances.js';
import { resultOf, writeHeaders, type ApiResult, type PreconditionedWriteOptions } from './results.js';

export type CoTenantCreate = components['schemas']['CoTenantCreate'];
export type CoTenantPatch = components['schemas']['CoTenantPatch'];

export function coTenants({ api, etags }: ResourceContext) {
  const tracked = (result: ApiResult<RentalInsurance>) => {
    etags.remember(result.data.id, result.etag);
    return result;
  };
  const headersFor = (id: number, options: PreconditionedWriteOptions) => ({ ...writeHeaders(options), 'If-Match': ifMatchFor(etags, id, options) });
  return {
    async add(id: number, coTenant: CoTenantCreate, options: PreconditionedWriteOptions = {}): Promise<ApiResult<RentalInsurance>> {
      return tracked(
        resultOf(
          await api.POST('/v1/rental-insurances/{id}/co-tenants', {
            params: { path: { id }, header: headersFor(id, options) },
            body: coTenant,
            signal: options.signal,
          }),
        ),
      );
    },

    async patch(id: number, cpfCnpj: string, patch: CoTenantPatch, options: PreconditionedWriteOptions = {}): Promise<ApiResult<RentalInsurance>> {
      return tracked(
        resultOf(
          await api.PATCH('/v1/rental-insurances/{id}/co-tenants/{cpfCnpj}', {
            params: { path: { id, cpfCnpj }, header: headersFor(id, options) },
            body: patch,
            headers: { 'Content-Type': 'application/merge-patch+json' },
            signal: options.signal,
          }),
        ),
      );
    },

    async remove(id: number, cpfCnpj: string, options: PreconditionedWriteOptions = {}): Promise<ApiResult<RentalInsurance>> {
      return tracked(
        resultOf(
          await api.DELETE('/v1/rental-insurances/{id}/co-tenants/{cpfCnpj}', {
            params: { path: { id, cpfCnpj }, header: headersFor(id, options) },
            signal: options.signal,
          }),
        ),
      );
    },
  };
}
