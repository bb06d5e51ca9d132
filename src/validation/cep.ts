import { invalid, valid, type ValidationResult } from './result';

// Only the bare form and the Correios mask (01310-100) are accepted; looser inputs
// (spaces, dots) are refused rather than guessed at.
const CEP = /^(\d{5})-?(\d{3})$/;

export function normaliseCep(input: string): ValidationResult {
  const match = CEP.exec(input);
  return match ? valid(match[1] + match[2]) : invalid('must be 8 digits');
}
