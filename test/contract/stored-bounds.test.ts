/**
 * What the service stores and echoes is bounded where the contracts bound it (issue 34 item 1):
 * the bounds the code applies (the error body's, a request log line's) are the ones the documents
 * declare, and the database itself refuses text longer than an answer may show, whoever writes it.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { listBoundsOf } from '../../src/contract/list-bounds';
import type { OpenApiDocument } from '../../src/contract/load-contract';
import { ERROR_BOUNDS } from '../../src/http/error-response';
import { LINE_BOUNDS } from '../../src/http/request-log-line';
import { FIELD_NAME_CHARS } from '../../src/validation/bounded-text';
import { useTestApp } from '../support/test-app';

const OPENAPI = path.join(__dirname, '..', '..', 'openapi');
type Document = Record<string, any>;
const read = (file: string): Document => YAML.parse(fs.readFileSync(path.join(OPENAPI, file), 'utf8')) as Document;

describe('When the code bounds what it echoes and stores', () => {
  it.each(['partner.yaml', 'back-office.yaml', 'health.yaml'])('then the error body is cut where %s bounds it', (file) => {
    const error = read(file).components.schemas.Error.properties;
    expect({ messageChars: error.message.maxLength, details: error.details.maxItems, detailChars: error.details.items.maxLength }).toEqual(
      ERROR_BOUNDS,
    );
    // A quoted field name leaves room for its path and the problem.
    expect(FIELD_NAME_CHARS).toBeLessThan(ERROR_BOUNDS.detailChars / 2);
  });

  it.each(['partner.yaml', 'back-office.yaml'])('then a request log line keeps what %s declares', (file) => {
    const line = read(file).components.schemas.RequestLogLine.properties;
    const error = line.error.oneOf[1].properties;
    expect({
      details: error.details.maxItems,
      detailChars: error.details.items.maxLength,
      codeChars: error.code.maxLength,
      resourceIdChars: line.resourceId.maxLength,
    }).toEqual(LINE_BOUNDS);
  });

  it('then every list of the documents has its page bounds, read from the contract', () => {
    const partner = listBoundsOf(read('partner.yaml') as OpenApiDocument);
    expect(partner.get('listRentalInsurances')).toEqual({ items: 200 });
    expect(partner.get('listEvents')).toEqual({ items: 200, bytes: 1_000_000 });
    expect(partner.get('listCoTenants')).toEqual({ items: 10 });
    expect(listBoundsOf(read('back-office.yaml') as OpenApiDocument).get('listAuditLog')).toEqual({ items: 40 });
  });
});

describe('When text longer than an answer may show is written to the database directly', () => {
  const world = useTestApp({}, { agencies: 1 });

  it('then the database refuses it, whoever writes it, and keeps what fits', async () => {
    const { db, agency } = world;
    await expect(
      db.$executeRaw`INSERT INTO audit_log (actor, action, company_id) VALUES (${'a'.repeat(251)}, 'credential.created', ${agency.companyId})`,
    ).rejects.toThrow(/audit_log_text_lengths/);
    await expect(db.$executeRaw`INSERT INTO companies (id, name) VALUES (${'bad id'}, 'x')`).rejects.toThrow(/companies_id_shape/);
    await expect(
      db.$executeRaw`INSERT INTO request_log (company_id, at, method, path, operation_id, status, error_details, correlation_id, duration_ms, credential_id, credential_name, source_address)
        VALUES (${agency.companyId}, now(), 'GET', '/v1/x', 'x', 400, array_fill('d'::text, ARRAY[6]), 'c', 1, ${agency.credentialId}::uuid, 'n', '127.0.0.1')`,
    ).rejects.toThrow(/request_log_text_lengths/);
    expect(
      await db.$executeRaw`INSERT INTO audit_log (actor, action, company_id) VALUES (${'a'.repeat(250)}, 'credential.created', ${agency.companyId})`,
    ).toBe(1);
  });
});
