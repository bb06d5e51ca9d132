/** Helpers of the sandbox time-travel tests: a guarantee's events from the feed, its stored clock. */
import request from 'supertest';
import { API, type PartnerApi } from '../support/partner-api';
import type { TestApp, World } from '../support/test-app';
import { feedCaughtUp } from '../webhooks/webhook-support';

export const DAY_MS = 86_400_000;
export const SYSTEM = { name: 'system', serviceAccount: true };
export const REVIEWER = { name: 'Sandbox reviewer', serviceAccount: false };

export interface FeedEvent {
  type: string;
  occurredAt: string;
  data: { status?: string; rentalInsuranceId?: number; rentalInsurance?: { id: number }; statementEntry?: { date: string; type: string } };
}

/** Every event of the agency about guarantee `id`, in feed order (the order they were stored). */
export async function eventsOf(world: World, id: number): Promise<FeedEvent[]> {
  await feedCaughtUp(world.db);
  const events: FeedEvent[] = [];
  let after: string | undefined;
  for (;;) {
    const query = new URLSearchParams({ limit: '200', ...(after ? { after } : {}) });
    const response = await request(world.app).get(`${API}/v1/events?${query}`).set(world.agency.auth);
    if (response.status !== 200) throw new Error(`GET /v1/events: ${response.status} ${response.text}`);
    const page = response.body._embedded.events as Array<FeedEvent & { cursor: string }>;
    if (page.length === 0) break;
    events.push(...page);
    after = page[page.length - 1]!.cursor;
  }
  return events.filter((event) => event.data.rentalInsurance?.id === id || event.data.rentalInsuranceId === id);
}

/** The guarantee's stored clock offset (ms ahead of the wall clock). */
export async function clockOffset(t: TestApp, id: number): Promise<bigint> {
  const row = await t.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(id) }, select: { clockOffsetMs: true } });
  return row.clockOffsetMs;
}

/** Advances the clock and returns the answer's body; fails the test unless 200. */
export async function advance(partner: PartnerApi, id: number, body: { by: string } | { to: string }) {
  const response = await partner.advanceClock(id, body);
  if (response.status !== 200) throw new Error(`advance-clock ${JSON.stringify(body)}: ${response.status} ${response.text}`);
  return response.body as { previousNow: string; now: string; rentalInsurance: { status: string; updatedAt: string; version?: number } };
}

export const plus = (iso: string, ms: number) => new Date(new Date(iso).getTime() + ms).toISOString();
export const later = (a: string, b: string) => (a > b ? a : b);
