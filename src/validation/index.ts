export { type ValidationResult, valid, invalid } from './result';
export { normaliseCpfCnpj } from './cpf-cnpj';
export { normaliseCep } from './cep';
export { UF_CODES, type Uf, isUf, validateUf } from './uf';
export { normalisePhone } from './phone';
export { validateBirthDate } from './birth-date';
export { MAX_ABS_CENTS, toCents, centsToNumber, centsToDecimalString } from './money';
export { FieldProblems } from './field-problems';
