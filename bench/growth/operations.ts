/**
 * The operations the growth bench compares across datasets (issue 38 item 5), each an autocannon
 * request of bench/scenarios.ts's shape, made for one target: an agency of a dataset, its sample
 * guarantee and its ledger's newest month.
 */
import { randomUUID } from 'node:crypto';
import type { Scenario } from '../scenarios';

export interface OperationInputs {
  auth: string;
  /** A guarantee of the agency with no co-tenants and about five history entries (as the 1M dataset's sample). */
  sampleId: number;
  sampleCpf: string;
  /** The 31 days of statement entries read: the dataset's newest day and the 30 before it. */
  monthStart: string;
  monthEnd: string;
}

const API = '/rental-guarantee/v1';

const createBody = JSON.stringify({
  tenant: { cpfCnpj: '52998224725', name: 'Maria José da Silva', phoneNumber: '(11) 98765-4321' },
  property: {
    externalId: 'IMV-GROWTH',
    type: 'apartment',
    address: { zipCode: '01310-100', street: 'Avenida Paulista', number: '1578', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
  },
  rentalAmount: 3500,
  condoFee: 850,
});

/** The operations in the order they are measured and reported. */
export const OPERATION_NAMES = [
  'get by id',
  'list, no filter',
  'list, status=active',
  'list, tenantCpfCnpj',
  'history',
  'statement entries, 31 days',
  'balance',
  'create',
] as const;

export type OperationName = (typeof OPERATION_NAMES)[number];

export function operations(inputs: OperationInputs): Record<OperationName, Scenario> {
  const headers = { Authorization: inputs.auth };
  const list = `${API}/rental-insurances`;
  const get = (name: string, path: string): Scenario => ({ name, method: 'GET', path, headers });
  return {
    'get by id': get('get by id', `${list}/${inputs.sampleId}`),
    'list, no filter': get('list, no filter', list),
    'list, status=active': get('list, status=active', `${list}?status=active`),
    'list, tenantCpfCnpj': get('list, tenantCpfCnpj', `${list}?tenantCpfCnpj=${inputs.sampleCpf}`),
    history: get('history', `${list}/${inputs.sampleId}/history`),
    'statement entries, 31 days': get(
      'statement entries, 31 days',
      `${API}/financial/statement-entries?startDate=${inputs.monthStart}&endDate=${inputs.monthEnd}`,
    ),
    balance: get('balance', `${API}/financial/balance`),
    create: {
      name: 'create',
      method: 'POST',
      path: list,
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: createBody,
      setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'Idempotency-Key': randomUUID() } }),
    },
  };
}
