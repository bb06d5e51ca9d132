/**
 * openapi-backend validates with a draft-07 Ajv that ignores `format`. The contract is OpenAPI 3.1
 * (JSON Schema 2020-12) and relies on formats (email, date, date-time, uri) and on `multipleOf: 0.01`
 * for money, which binary floating point breaks (19.99 / 0.01 is not an integer in doubles).
 * Its date, date-time and duration formats are replaced by the service's own time parser.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type Ajv from 'ajv';
import type { Options } from 'ajv';
import { parseDate, parseDateTime, parseDuration } from '../validation/time-values';

export function customizeAjv(original: Ajv, options: Options): Ajv {
  const ajv = new Ajv2020({ ...options, strict: false, allErrors: true });
  addFormats(ajv);
  // The documents' time formats are read by one parser (src/validation/time-values.ts): what the
  // validator accepts, every operation can compute with (years 0001-9999, leap seconds normalised).
  ajv.addFormat('date', (text: string) => parseDate(text) !== null);
  ajv.addFormat('date-time', (text: string) => parseDateTime(text) !== null);
  ajv.addFormat('duration', (text: string) => parseDuration(text) !== null);
  // Ajv's multipleOfPrecision is an absolute tolerance: with it, 0.07 passes but 1234567.89 fails.
  // A quotient rounded to 15 significant digits is exact for every amount up to 999,999,999.99.
  ajv.removeKeyword('multipleOf');
  ajv.addKeyword({
    keyword: 'multipleOf',
    type: 'number',
    schemaType: 'number',
    validate: function multipleOf(step: number, value: number): boolean {
      const ok = Number.isInteger(Number((value / step).toPrecision(15)));
      if (!ok)
        (multipleOf as { errors?: unknown[] }).errors = [
          { keyword: 'multipleOf', params: { multipleOf: step }, message: `must be multiple of ${step}` },
        ];
      return ok;
    },
  });
  // Keep openapi-backend's OpenAPI formats (int32, int64, float, double, byte, binary, password).
  for (const [name, format] of Object.entries(original.formats)) {
    if (format !== undefined && !(name in ajv.formats)) ajv.addFormat(name, format);
  }
  return ajv as unknown as Ajv;
}
