/** Reading list answers in the guarantee list tests: the ids of a page and the pages its links name. */
import type { Response } from 'supertest';
import type { Guarantee, PartnerApi } from '../support/partner-api';

export const ids = (response: Response) => (response.body._embedded.rentalInsurances as Guarantee[]).map((item) => item.id);

/** Creates `count` guarantees one after the other; returns their ids newest first. */
export async function createMany(partner: PartnerApi, count: number, overrides: Record<string, unknown> = {}): Promise<number[]> {
  const result: number[] = [];
  for (let index = 0; index < count; index++) result.push((await partner.newGuarantee(overrides)).id);
  return result.reverse();
}

export function linkOf(response: Response, name: string): URL | undefined {
  const link = response.body._links[name] as { href: string } | undefined;
  return link ? new URL(link.href) : undefined;
}

/** Which links are present, and the page and pageSize each one names. */
export function linkPages(response: Response): Record<string, { page: string | null; pageSize: string | null }> {
  const pages: Record<string, { page: string | null; pageSize: string | null }> = {};
  for (const name of Object.keys(response.body._links)) {
    const url = linkOf(response, name)!;
    pages[name] = { page: url.searchParams.get('page'), pageSize: url.searchParams.get('pageSize') };
  }
  return pages;
}
