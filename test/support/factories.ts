/** Small builders of valid request data; tests override what they are about. */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Agency, TestApp } from './test-app';
import { API } from './test-app';

/** A valid CPF built from 9 base digits (check digits computed the official way). */
export function cpf(base: number): string {
  const digits = String(base).padStart(9, '0').slice(-9).split('').map(Number);
  if (digits.every((digit) => digit === digits[0])) digits[8] = (digits[8]! + 1) % 10;
  for (const length of [9, 10]) {
    const sum = digits.slice(0, length).reduce((total, digit, index) => total + digit * (length + 1 - index), 0);
    const remainder = (sum * 10) % 11;
    digits.push(remainder === 10 ? 0 : remainder);
  }
  return digits.join('');
}

let counter = Math.floor(Math.random() * 1_000_000);
export const nextCpf = () => cpf(++counter * 7919);

export function guaranteeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    externalId: `CTR-${counter}`,
    tenant: {
      cpfCnpj: nextCpf(),
      name: 'Maria José da Silva',
      email: 'maria.silva@example.com',
      birthDate: '1988-04-12',
      phoneNumber: '(11) 98765-4321',
      profession: 'Engenheira',
    },
    property: {
      externalId: `IMV-${counter}`,
      type: 'apartment',
      address: {
        zipCode: '01310-100',
        street: 'Avenida Paulista',
        number: '1578',
        complement: 'Apto 52',
        neighborhood: 'Bela Vista',
        city: 'São Paulo',
        state: 'SP',
      },
    },
    rentalAmount: 3500,
    condoFee: 850,
    propertyTax: 210.35,
    otherFees: null,
    setupFee: 150,
    ...overrides,
  };
}

export const newKey = (): string => randomUUID();

export async function createGuarantee(t: TestApp, agency: Agency, overrides: Record<string, unknown> = {}) {
  const response = await request(t.app)
    .post(`${API}/v1/rental-insurances`)
    .set(agency.auth)
    .set('Idempotency-Key', newKey())
    .send(guaranteeBody(overrides));
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: number; status: string; tenant: { cpfCnpj: string } } & Record<string, unknown>;
}
