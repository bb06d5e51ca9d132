/** Small builders of valid request data; tests override what they are about. Requests are partner-api.ts's job. */
import { randomUUID } from 'node:crypto';
import { withCpfCheckDigits } from '../../src/validation/cpf-cnpj';

/** A valid CPF built from 9 base digits (check digits computed the official way). */
export function cpf(base: number): string {
  const digits = String(base).padStart(9, '0').slice(-9);
  // A single repeated digit is never issued (and refused): its last digit moves on by one.
  const issued = /^(.)\1*$/.test(digits) ? digits.slice(0, 8) + String((Number(digits[8]) + 1) % 10) : digits;
  return withCpfCheckDigits(issued);
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

/** Tenant overrides merged into the factory's valid tenant. */
export function withTenant(tenant: Record<string, unknown>): Record<string, unknown> {
  const base = guaranteeBody();
  return { tenant: { ...(base['tenant'] as object), ...tenant } };
}

/** Today's calendar day in America/Sao_Paulo, shifted by `days`, as YYYY-MM-DD. */
export function saoPauloDay(days = 0): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(),
  );
  const date = new Date(`${today}T12:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** A fixed WEBHOOK_SECRET_KEY (base64 of 32 bytes), which production configuration requires. */
export const TEST_WEBHOOK_KEY = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';
