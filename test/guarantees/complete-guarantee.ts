/** The contract's complete guarantee example, as a partner sends it (punctuated CPF, phone and CEP) and as the API answers it. */
import { RFC3339_MS } from '../support/partner-api';

export const CREATOR = 'Imobiliária Paulista - ERP';

/** The complete example of the contract, with punctuated CPF, phone and CEP. */
export function completeRequest() {
  return {
    externalId: 'CTR-2026-000123',
    tenant: {
      cpfCnpj: '529.982.247-25',
      name: 'Maria José da Silva',
      email: 'maria.silva@example.com',
      birthDate: '1988-04-12',
      phoneNumber: '(11) 98765-4321',
      profession: 'Engenheira civil',
    },
    property: {
      externalId: 'IMV-4821',
      type: 'apartment',
      address: {
        zipCode: '01310-100',
        street: 'Avenida Paulista',
        number: '1000',
        complement: 'Apto 82',
        neighborhood: 'Bela Vista',
        city: 'São Paulo',
        state: 'SP',
      },
    },
    coTenants: [
      {
        cpfCnpj: '111.444.777-35',
        name: 'João Pereira Santos',
        email: 'joao.santos@example.com',
        birthDate: '1986-09-30',
        phoneNumber: '+55 11 91234-5678',
      },
    ],
    rentalAmount: 3500,
    condoFee: 850,
    propertyTax: 210.35,
    otherFees: null,
    setupFee: 150,
  };
}

export function expectedResponse(overrides: Record<string, unknown> = {}) {
  return {
    id: expect.any(Number),
    externalId: 'CTR-2026-000123',
    status: 'under_review',
    creator: { name: CREATOR, serviceAccount: true },
    tenant: {
      cpfCnpj: '52998224725',
      name: 'Maria José da Silva',
      email: 'maria.silva@example.com',
      birthDate: '1988-04-12',
      phoneNumber: '+5511987654321',
      profession: 'Engenheira civil',
    },
    coTenants: [
      {
        cpfCnpj: '11144477735',
        name: 'João Pereira Santos',
        email: 'joao.santos@example.com',
        birthDate: '1986-09-30',
        phoneNumber: '+5511912345678',
      },
    ],
    property: {
      externalId: 'IMV-4821',
      type: { code: 'apartment', description: 'Apartment' },
      address: {
        zipCode: '01310100',
        street: 'Avenida Paulista',
        number: '1000',
        complement: 'Apto 82',
        neighborhood: 'Bela Vista',
        city: 'São Paulo',
        state: 'SP',
      },
    },
    rentalAmount: 3500,
    condoFee: 850,
    propertyTax: 210.35,
    otherFees: null,
    installmentAmount: null,
    setupFee: 150,
    coverageLimit: null,
    rentCoverageLimit: null,
    remainingCoverageAmount: null,
    rentRemainingCoverageAmount: null,
    startBillingDate: null,
    terminationDate: null,
    createdAt: expect.stringMatching(RFC3339_MS),
    updatedAt: expect.stringMatching(RFC3339_MS),
    ...overrides,
  };
}
