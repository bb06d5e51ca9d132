/** Request bodies of the validation tests, changed at a path as the error details name fields (`coTenants[0].email`). */
import { cpf, guaranteeBody } from '../support/factories';

export const REMOVE = Symbol('remove');

/** `path` like `tenant.cpfCnpj` or `coTenants[0].email`, as the error details name fields. */
function segmentsOf(path: string): Array<string | number> {
  return path.split('.').flatMap((part) => {
    const match = /^([^[]+)((?:\[\d+\])*)$/.exec(part)!;
    const indexes = [...match[2]!.matchAll(/\[(\d+)\]/g)].map((index) => Number(index[1]));
    return [match[1]!, ...indexes];
  });
}

export function setAt(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const segments = segmentsOf(path);
  let node = body as Record<string | number, unknown>;
  for (const segment of segments.slice(0, -1)) node = node[segment] as Record<string | number, unknown>;
  const last = segments[segments.length - 1]!;
  if (value === REMOVE) delete node[last];
  else node[last] = value;
  return body;
}

export function getAt(body: unknown, path: string): unknown {
  return segmentsOf(path).reduce<unknown>((node, segment) => (node as Record<string | number, unknown>)[segment], body);
}

/** A valid body with one co-tenant, so that co-tenant paths exist. */
export function baseBody(): Record<string, unknown> {
  return guaranteeBody({
    coTenants: [{ cpfCnpj: cpf(987654321), name: 'João Pereira', email: 'joao@example.com', birthDate: '1986-09-30', phoneNumber: '11912345678' }],
  });
}

export const coTenant = (index: number) => ({ cpfCnpj: cpf(300000000 + index * 17), name: `Co-tenant ${index}` });
export const text = (length: number) => 'x'.repeat(length);
