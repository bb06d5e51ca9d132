/**
 * Every answer has a worst case in bytes, derived from the contract, within a budget (issue 34
 * item 1). For every document under openapi/ (a new document or operation is taken up without a
 * line here), every response of every operation, errors included: each string, array and open
 * object declares its bound (answer-size.ts says how each is counted), and the worst case of the
 * whole answer is at most ANSWER_BUDGET_BYTES. Copies of a document with one bound removed, or a
 * list made longer, fail; the walker's counting is checked against JSON.stringify itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { ANSWER_BUDGET_BYTES, CHAR_BYTES, NUMBER_BYTES, answerSizes } from '../../src/contract/answer-size';
import { patternBound } from '../../src/contract/pattern-bound';

const OPENAPI = path.join(__dirname, '..', '..', 'openapi');
const DOCUMENTS = fs.readdirSync(OPENAPI).filter((file) => file.endsWith('.yaml'));
type Document = Record<string, any>;
const read = (file: string): Document => YAML.parse(fs.readFileSync(path.join(OPENAPI, file), 'utf8')) as Document;

/** The service's own files (published documents, reference page): the same for every caller, nothing stored in them. */
const STATIC_ANSWERS = ['getApiReference 200 text/html', 'getOpenApiJson 200 application/json', 'getOpenApiYaml 200 application/yaml'];

describe('Every answer of every document declares its bounds', () => {
  it('then the documents are the five of the service', () => {
    expect(DOCUMENTS.sort()).toEqual(['auth.yaml', 'back-office.yaml', 'console.yaml', 'health.yaml', 'partner.yaml']);
  });

  it.each(DOCUMENTS)('then no string, array or object of an answer of %s lacks its bound', (file) => {
    expect(answerSizes(read(file)).flatMap((answer) => answer.unbounded.map((where) => `${answer.where}${where}`))).toEqual([]);
  });

  it.each(DOCUMENTS)('then every answer of %s is at most 6 MiB in the worst case', (file) => {
    const over = answerSizes(read(file)).filter((answer) => !answer.staticAnswer && !answer.streamed && answer.bytes > ANSWER_BUDGET_BYTES);
    expect(over.map((answer) => `${answer.where}: ${answer.bytes} bytes`)).toEqual([]);
  });

  it('then only the document downloads are streamed, each at most 10 MB on the wire', () => {
    const streamed = DOCUMENTS.flatMap((file) => answerSizes(read(file)).filter((answer) => answer.streamed));
    expect([...new Set(streamed.map((answer) => answer.operationId))].sort()).toEqual([
      'getAgencyRentalInsuranceDocument',
      'getRentalInsuranceDocument',
      'getRentalInsuranceDocumentForReview',
    ]);
    expect(streamed.every((answer) => answer.bytes === 10 * 1024 * 1024)).toBe(true);
  });

  it('then only the published documents and the reference page are static answers, outside the budget', () => {
    const statics = DOCUMENTS.flatMap((file) => answerSizes(read(file)).filter((answer) => answer.staticAnswer));
    expect(statics.map((answer) => answer.where).sort()).toEqual(STATIC_ANSWERS);
  });
});

describe('When a document loses a bound', () => {
  it('then a copy of the partner document with one maxLength removed fails, naming the field', () => {
    const document = read('partner.yaml');
    delete document.components.schemas.RequestLogLine.properties.credential.properties.name.maxLength;
    const unbounded = answerSizes(document).filter((answer) => answer.unbounded.length > 0);
    expect(unbounded.map((answer) => answer.where)).toEqual(['listRequestLog 200 application/json']);
    expect(unbounded[0]!.bytes).toBe(Infinity);
    expect(unbounded[0]!.unbounded).toEqual([
      '._embedded.requestLog[].credential.name: string without maxLength (#/components/schemas/RequestLogLine/properties/credential/properties/name)',
    ]);
  });

  it('then a copy with one maxItems removed fails', () => {
    const document = read('back-office.yaml');
    delete document.components.schemas.AuditLogPage.properties._embedded.properties.auditLogEntries.maxItems;
    expect(answerSizes(document).flatMap((answer) => answer.unbounded)).toEqual([
      '._embedded.auditLogEntries: array without maxItems (#/components/schemas/AuditLogPage/properties/_embedded/properties/auditLogEntries)',
    ]);
  });

  it('then a copy whose list is longer than the budget allows fails the budget', () => {
    const document = read('partner.yaml');
    document.components.schemas.RentalInsurancePage.properties._embedded.properties.rentalInsurances.maxItems = 300;
    const over = answerSizes(document).filter((answer) => answer.bytes > ANSWER_BUDGET_BYTES && !answer.staticAnswer && !answer.streamed);
    expect(over.map((answer) => answer.where)).toEqual(['listRentalInsurances 200 application/json']);
  });

  it('then an operation added later with an open object or an unbounded string is caught without a line of this test', () => {
    const document = read('back-office.yaml');
    document.paths['/v1/new-listing'] = {
      get: {
        operationId: 'newListing',
        responses: {
          '200': {
            description: 'A list of notes.',
            content: {
              'application/json': { schema: { type: 'object', properties: { notes: { type: 'array', maxItems: 5, items: { type: 'string' } } } } },
            },
          },
        },
      },
    };
    expect(
      answerSizes(document)
        .flatMap((answer) => answer.unbounded)
        .sort(),
    ).toEqual([
      '(answer): additionalProperties without maxProperties (newListing 200 application/json schema)',
      '.notes[]: string without maxLength (newListing 200 application/json schema/properties/notes/items)',
    ]);
  });
});

/** A one-operation document answering `schema`. */
const answering = (schema: Document, components: Document = {}): Document => ({
  paths: { '/x': { get: { operationId: 'x', responses: { '200': { description: 'x', content: { 'application/json': { schema } } } } } } },
  components: { schemas: components },
});
const worstOf = (schema: Document, components?: Document) => answerSizes(answering(schema, components))[0]!.bytes;
const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('When the walker counts bytes', () => {
  it('then a character of free text counts 6 bytes: a control character is what JSON.stringify writes longest', () => {
    const schema = { type: 'string', maxLength: 10 };
    const candidates = ['\u0001', '\u001f', '"', '\\', '\n', 'é', '€', '\u2028', '😀', '\uD800'].map((char) => char.repeat(10));
    const longest = Math.max(...candidates.map(bytesOf));
    expect(longest).toBe(2 + 10 * CHAR_BYTES);
    expect(worstOf(schema)).toBe(longest);
  });

  it('then a number counts 25 bytes, the longest a JavaScript number is written', () => {
    const numbers = [-0.0000012345678901234567, -1.7976931348623157e308, -2.2250738585072014e-308, -123456789012345680000, Number.MIN_SAFE_INTEGER];
    expect(Math.max(...numbers.map(bytesOf))).toBeLessThanOrEqual(NUMBER_BYTES);
    expect(bytesOf(-0.0000012345678901234567)).toBe(NUMBER_BYTES);
    expect(worstOf({ type: 'number' })).toBe(NUMBER_BYTES);
    expect(worstOf({ type: 'integer', minimum: 100, maximum: 599 })).toBe(3);
  });

  it('then formats, enums and anchored patterns bound a string as their grammar allows', () => {
    expect(worstOf({ type: 'string', format: 'uuid' })).toBe(38);
    expect(worstOf({ type: 'string', format: 'date-time', maxLength: 30 })).toBe(32);
    expect(worstOf({ type: 'string', format: 'date-time' })).toBe(Infinity);
    expect(worstOf({ type: 'string', enum: ['a', 'longer'] })).toBe(8);
    expect(worstOf({ type: 'string', pattern: '^[0-9]{8}$' })).toBe(10);
    expect(worstOf({ type: 'string', maxLength: 10, pattern: '^[ -~]*$' })).toBe(22);
    expect(worstOf({ type: 'string', maxLength: 10, pattern: '\\S' })).toBe(62);
    expect(worstOf({ type: 'string', pattern: '^a+$' })).toBe(Infinity);
  });

  it('then every shape of the documents is counted as JSON.stringify writes its longest instance', () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      properties: {
        name: { type: ['string', 'null'], maxLength: 4 },
        tags: { type: 'array', maxItems: 3, items: { type: 'string', enum: ['ab', 'abcd'] } },
        nested: { oneOf: [{ type: 'null' }, { $ref: '#/components/schemas/Inner' }] },
        extra: { type: 'object', maxProperties: 2, propertyNames: { maxLength: 3 }, additionalProperties: { type: 'boolean' } },
      },
    };
    const inner = {
      type: 'object',
      additionalProperties: false,
      properties: { ok: { type: 'boolean' }, n: { type: 'integer', minimum: -5, maximum: 10 } },
    };
    const longest = {
      name: '\u0001'.repeat(4),
      tags: ['abcd', 'abcd', 'abcd'],
      nested: { ok: false, n: 10 },
      extra: { ['\u0001'.repeat(3)]: false, ['\u0002'.repeat(3)]: false },
    };
    expect(worstOf(schema, { Inner: inner })).toBe(bytesOf(longest));
  });

  it('then an anchored pattern bounds length and bytes, and an unanchored one bounds nothing', () => {
    expect(patternBound('^[A-Za-z0-9_-]{1,64}$')).toEqual({ maxChars: 64, bytesPerChar: 1 });
    expect(patternBound('^(sbx|prd)_ci_[A-Za-z0-9_-]+$')).toEqual({ maxChars: Infinity, bytesPerChar: 1 });
    expect(patternBound('^([0-9]{11}|[0-9A-Z]{12}[0-9]{2})$')).toEqual({ maxChars: 14, bytesPerChar: 1 });
    expect(patternBound('^\\+55[1-9]{2}[0-9]{8,9}$')).toEqual({ maxChars: 14, bytesPerChar: 1 });
    expect(patternBound('^[!-~]+$')).toEqual({ maxChars: Infinity, bytesPerChar: 2 });
    expect(patternBound('^[^a]{3}$')).toEqual({ maxChars: 3, bytesPerChar: 6 });
    expect(patternBound('\\S')).toEqual({ maxChars: Infinity, bytesPerChar: 6 });
    expect(patternBound('^a|b')).toEqual({ maxChars: Infinity, bytesPerChar: 6 });
    expect(patternBound('^.{3}$')).toEqual({ maxChars: 3, bytesPerChar: 6 });
    expect(patternBound('^(?=x)[a-z]{2}$')).toEqual({ maxChars: 2, bytesPerChar: 1 });
  });
});
