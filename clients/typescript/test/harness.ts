/**
 * Per test file: a real sandbox service (scripts/support/sandbox-service.mjs; fresh embedded
 * PostgreSQL, demo credential), the fault proxy in front of it, and clients that go through the
 * proxy. The scheduler is off: nothing changes a guarantee behind a test's back.
 */
import { randomUUID } from 'node:crypto';
import { startSandboxService, type SandboxService } from '../../../scripts/support/sandbox-service.mjs';
import { createPartnerClient, type PartnerClientOptions, type RentalInsuranceCreate } from '../src/index.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';

export const API = '/rental-guarantee';

export interface Harness {
  service: SandboxService;
  proxy: FaultProxy;
  /** A client of the demo credential that goes through the proxy (short backoff for the tests). */
  client(options?: Partial<PartnerClientOptions>): ReturnType<typeof createPartnerClient>;
  close(): Promise<void>;
}

export async function startHarness(name: string): Promise<Harness> {
  const service = await startSandboxService({ name });
  const proxy = await startFaultProxy(service.origin);
  return {
    service,
    proxy,
    client: (options = {}) =>
      createPartnerClient({
        baseUrl: `${proxy.origin}${API}`,
        authUrl: `${proxy.origin}/auth`,
        clientId: service.clientId,
        clientSecret: service.clientSecret,
        retry: { baseDelayMs: 20, maxDelayMs: 200 },
        ...options,
      }),
    async close() {
      await proxy.close();
      await service.stop();
    },
  };
}

/** A valid guarantee whose property reference is unique, so a test can count its own. */
export function newGuarantee(overrides: Partial<RentalInsuranceCreate> = {}): RentalInsuranceCreate {
  return {
    externalId: `CTR-${randomUUID().slice(0, 8)}`,
    tenant: { cpfCnpj: '529.982.247-25', name: 'Maria José da Silva', email: 'maria.silva@example.com' },
    property: {
      externalId: `IMV-${randomUUID()}`,
      type: 'apartment',
      address: { zipCode: '01310-100', street: 'Avenida Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
    },
    rentalAmount: 3500,
    condoFee: 850,
    ...overrides,
  };
}

export const header = (request: { headers: Record<string, string | string[] | undefined> }, name: string) => {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
};
