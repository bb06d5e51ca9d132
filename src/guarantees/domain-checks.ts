/**
 * The rule problems (check digits, phones, CEPs, birth dates, money precision) of a request body
 * that failed schema validation, so that a partner gets every problem in one answer. They run the
 * very normalisation the services run; only the well-formed parts of the body are looked at.
 */
import { FieldProblems } from './field-problems';
import { coTenantColumns, createColumns, objectOr, patchColumns } from './guarantee-input';

function collect(run: (problems: FieldProblems) => void): string[] {
  const problems = new FieldProblems();
  run(problems);
  return problems.list();
}

export const guaranteeDomainChecks: Record<string, (body: unknown) => string[]> = {
  createRentalInsurance: (body) => collect((problems) => createColumns(problems, objectOr(body))),
  patchRentalInsurance: (body) => collect((problems) => patchColumns(problems, objectOr(body))),
  addCoTenant: (body) => collect((problems) => coTenantColumns(problems, '', { cpfCnpj: '', ...objectOr(body) })),
  patchCoTenant: (body) => collect((problems) => coTenantColumns(problems, '', { ...objectOr(body), cpfCnpj: undefined as never })),
};
