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

/**
 * The `customizeAjv` of one backend: one Ajv per validation context and options, made at its first
 * use and kept. openapi-backend asks for a new instance for every validator it compiles; a new
 * instance compiles the JSON Schema meta-schema again (to check each schema it is given) and adds
 * every format again, which cost more than compiling the operation's own schemas.
 */
export function sharedAjvs(): (original: Ajv, options: Options, context?: string) => Ajv {
  const made = new Map<string, Ajv>();
  return (original, options, context) => {
    const key = `${context ?? ''} ${JSON.stringify(options)}`;
    let ajv = made.get(key);
    if (!ajv) {
      ajv = customizeAjv(original, options);
      made.set(key, ajv);
    }
    return ajv;
  };
}

export function customizeAjv(original: Ajv, options: Options): Ajv {
  // The documents are checked as documents (`make lint-openapi`); checking every schema again against
  // the JSON Schema meta-schema at each compilation cost each Ajv instance the meta-schema's own compilation.
  const ajv = new Ajv2020({ ...options, strict: false, allErrors: true, validateSchema: false });
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
