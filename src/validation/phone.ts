import { invalid, valid, type ValidationResult } from './result';

// Area codes (DDD) actually assigned by Anatel; a plausible-looking but unassigned
// code such as 20 or 23 cannot reach anybody.
const DDD_CODES: ReadonlySet<string> = new Set([
  '11',
  '12',
  '13',
  '14',
  '15',
  '16',
  '17',
  '18',
  '19',
  '21',
  '22',
  '24',
  '27',
  '28',
  '31',
  '32',
  '33',
  '34',
  '35',
  '37',
  '38',
  '41',
  '42',
  '43',
  '44',
  '45',
  '46',
  '47',
  '48',
  '49',
  '51',
  '53',
  '54',
  '55',
  '61',
  '62',
  '63',
  '64',
  '65',
  '66',
  '67',
  '68',
  '69',
  '71',
  '73',
  '74',
  '75',
  '77',
  '79',
  '81',
  '82',
  '83',
  '84',
  '85',
  '86',
  '87',
  '88',
  '89',
  '91',
  '92',
  '93',
  '94',
  '95',
  '96',
  '97',
  '98',
  '99',
]);

// Visual separators only; a '+' is meaningful and handled separately.
const SEPARATORS = /[\s.()-]/g;
// Mobile: 9 digits starting with 9; landline: 8 digits starting with 2-5.
const SUBSCRIBER = /^(?:9\d{8}|[2-5]\d{7})$/;

const REASON = 'must be a Brazilian phone number';

function national(digits: string): string | null {
  if (digits.length !== 10 && digits.length !== 11) return null;
  const ddd = digits.slice(0, 2);
  return DDD_CODES.has(ddd) && SUBSCRIBER.test(digits.slice(2)) ? digits : null;
}

/** Normalises a Brazilian phone number to E.164 (+55 DDD subscriber). */
export function normalisePhone(input: string): ValidationResult {
  const compact = input.replace(SEPARATORS, '');
  const hasPlus = compact.startsWith('+');
  const digits = hasPlus ? compact.slice(1) : compact;
  if (!/^\d+$/.test(digits)) return invalid(REASON);

  let result: string | null;
  if (hasPlus) {
    // An explicit international prefix must be Brazil's.
    result = digits.startsWith('55') ? national(digits.slice(2)) : null;
  } else {
    // Without '+', 10-11 digits are read as national first: DDD 55 exists, so
    // "55987654321" is a Rio Grande do Sul mobile, not a country code.
    result = national(digits) ?? (digits.startsWith('55') ? national(digits.slice(2)) : null);
  }
  return result === null ? invalid(REASON) : valid(`+55${result}`);
}
