/**
 * openapi-backend validates with a draft-07 Ajv that ignores `format`. The contract is OpenAPI 3.1
 * (JSON Schema 2020-12) and relies on formats (email, date, date-time, uri) and on `multipleOf: 0.01`
 * for money, which binary floating point breaks without `multipleOfPrecision`.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type Ajv from 'ajv';
import type { Options } from 'ajv';

export function customizeAjv(original: Ajv, options: Options): Ajv {
  const ajv = new Ajv2020({ ...options, strict: false, allErrors: true, multipleOfPrecision: 9 });
  addFormats(ajv);
  // Keep openapi-backend's OpenAPI formats (int32, int64, float, double, byte, binary, password).
  for (const [name, format] of Object.entries(original.formats)) {
    if (format !== undefined && !(name in ajv.formats)) ajv.addFormat(name, format);
  }
  return ajv as unknown as Ajv;
}
