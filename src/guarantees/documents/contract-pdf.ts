/**
 * The contract the signers sign, rendered as a PDF (pdfkit) from the guarantee as it is when the
 * proposal is accepted or the contract reissued: the parties, the property, the amounts and the
 * coverage, the dates, and the guarantee's version (which the document's name repeats).
 * pdfkit (with its fonts and layout engine, a few megabytes of code) is loaded at the first
 * contract a process renders, not by every process and test file that never renders one.
 */
import { decimalToNumber, toDateOnly } from '../../database/column-values';
import type { GuaranteeRow } from '../guarantee-mapper';

const money = (value: Parameters<typeof decimalToNumber>[0]) => {
  const amount = decimalToNumber(value);
  return amount === null ? '-' : `R$ ${amount.toLocaleString('pt-BR', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
};

export function contractFileName(row: Pick<GuaranteeRow, 'id' | 'version'>): string {
  return `contract-${row.id}-v${row.version}.pdf`;
}

/** The contract of `row` (its version as of this change), issued at `issuedAt`. */
export async function renderContract(row: GuaranteeRow, issuedAt: Date): Promise<Buffer> {
  const { default: PDFDocument } = await import('pdfkit');
  const pdf = new PDFDocument({
    size: 'A4',
    margin: 56,
    info: {
      Title: `Rental guarantee contract ${row.id}, version ${row.version}`,
      Author: 'Rental Guarantee',
      CreationDate: issuedAt,
      ModDate: issuedAt,
    },
  });
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  const heading = (text: string) => pdf.moveDown(0.8).font('Helvetica-Bold').fontSize(12).text(text).font('Helvetica').fontSize(10);
  const line = (label: string, value: string | null) => pdf.text(`${label}: ${value ?? '-'}`);

  pdf.font('Helvetica-Bold').fontSize(16).text('Rental guarantee contract', { align: 'center' });
  pdf.font('Helvetica').fontSize(10).text(`Guarantee ${row.id}, version ${row.version}, issued ${issuedAt.toISOString()}`, { align: 'center' });

  heading('Parties');
  line('Agency', row.companyId);
  line('Tenant', `${row.tenantName} (CPF/CNPJ ${row.tenantCpfCnpj})`);
  for (const coTenant of row.coTenants) line('Co-tenant', `${coTenant.name} (CPF/CNPJ ${coTenant.cpfCnpj})`);
  line('Guarantor', 'Rental Guarantee');

  heading('Property');
  line('Reference', row.propertyExternalId);
  line('Type', row.propertyType);
  const complement = row.addressComplement ? `, ${row.addressComplement}` : '';
  line(
    'Address',
    `${row.addressStreet}, ${row.addressNumber}${complement}, ${row.addressNeighborhood}, ${row.addressCity}-${row.addressState}, CEP ${row.addressZipCode}`,
  );

  heading('Amounts (monthly, BRL)');
  line('Rent', money(row.rentalAmount));
  line('Condominium fee', money(row.condoFee));
  line('Property tax', money(row.propertyTax));
  line('Other fees', money(row.otherFees));
  line('Guarantee installment', money(row.installmentAmount));
  line('Setup fee (once)', money(row.setupFee));

  heading('Coverage');
  line('Coverage limit', money(row.coverageLimit));
  line('Rent coverage limit', money(row.rentCoverageLimit));

  heading('Dates');
  line('Start of billing', toDateOnly(row.startBillingDate));
  line('End of the guarantee', toDateOnly(row.terminationDate));

  pdf.moveDown(2).text('The tenant and each co-tenant sign this contract electronically; each signature refers to this version of the document.');
  pdf.end();
  return done;
}
