/**
 * Issue 37: the back-office operations the console needed and the back office lacked, called with
 * tokens as automation calls them (the console calls the same with its session): the reviewers'
 * queue, oldest first and filterable by agency; a director's read-only view of the agency
 * (guarantees with history and signatures, request log, webhook endpoints, failed deliveries,
 * redelivery); another agency's resources are not found.
 */
import { asPartner } from '../support/partner-api';
import { guaranteeBody } from '../support/factories';
import { expectErrorBody } from '../support/error-body';
import { useTestApp } from '../support/test-app';
import { backOffice } from '../support/back-office';
import { webhookClient } from '../webhooks/webhook-support';
import { newDirector, opsClient, useStaff } from './ops-support';

const world = useTestApp({}, { agencies: 2 });
const { ops: staff } = useStaff(world, { scopes: ['ops:guarantees:review'] });

test('When reviewers open the queue, then they see the guarantees waiting for them, oldest first, and can narrow it to one agency', async () => {
  const [first, second] = world.agencies;
  const older = (await asPartner(world, first).create(guaranteeBody())).body.id as number;
  const other = (await asPartner(world, second).create(guaranteeBody())).body.id as number;
  const waiting = (await asPartner(world, first).create(guaranteeBody())).body.id as number;
  const decided = (await asPartner(world, first).create(guaranteeBody())).body.id as number;
  await backOffice(world).requestInformation(waiting);
  await backOffice(world).decline(decided);

  const queue = await staff.get('/v1/review-queue?pageSize=200');
  expect(queue.status).toBe(200);
  const ids = queue.body._embedded.reviewQueue.map((item: { id: number }) => item.id);
  expect(ids).toEqual(expect.arrayContaining([older, other, waiting]));
  expect(ids).not.toContain(decided);
  expect(ids.indexOf(older)).toBeLessThan(ids.indexOf(other));
  expect(ids.indexOf(other)).toBeLessThan(ids.indexOf(waiting));
  expect(queue.body._embedded.reviewQueue.find((item: { id: number }) => item.id === waiting)).toMatchObject({
    companyId: first!.companyId,
    status: 'information_requested',
    tenantName: expect.any(String),
    waitingSince: expect.any(String),
  });

  const one = await staff.get(`/v1/review-queue?companyId=${second!.companyId}`);
  expect(one.body._embedded.reviewQueue.map((item: { id: number }) => item.id)).toEqual([other]);
  const informing = await staff.get(`/v1/review-queue?companyId=${first!.companyId}&status=information_requested`);
  expect(informing.body._embedded.reviewQueue.map((item: { id: number }) => item.id)).toEqual([waiting]);
});

test('When a director reads the agency, then they see its guarantees, history, signatures and request log, and never another agency’s', async () => {
  const [own, foreign] = world.agencies;
  const director = opsClient(world, await newDirector(world, own!.companyId, 'Dalva Diretora'));
  const id = (await asPartner(world, own).create(guaranteeBody())).body.id as number;
  const foreignId = (await asPartner(world, foreign).create(guaranteeBody())).body.id as number;

  const list = await director.get('/v1/agency/rental-insurances?status=under_review');
  expect(list.status).toBe(200);
  expect(list.body._embedded.rentalInsurances.map((g: { id: number }) => g.id)).toContain(id);
  expect(list.body._embedded.rentalInsurances.map((g: { id: number }) => g.id)).not.toContain(foreignId);
  const one = await director.get(`/v1/agency/rental-insurances/${id}`);
  expect(one.status).toBe(200);
  expect(one.headers['etag']).toBe('W/"1"');
  expect((await director.get(`/v1/agency/rental-insurances/${id}/history`)).body._embedded.historyEntries).toHaveLength(1);
  expect((await director.get(`/v1/agency/rental-insurances/${id}/signatures`)).body._embedded.signatures).toEqual([]);
  expectErrorBody(await director.get(`/v1/agency/rental-insurances/${foreignId}`), 404, 'not_found');
  expectErrorBody(await director.get(`/v1/agency/rental-insurances/${foreignId}/history`), 404, 'not_found');

  await world.flushRequestLog();
  const log = await director.get(`/v1/agency/request-log?operationId=createRentalInsurance&from=${new Date(Date.now() - 3_600_000).toISOString()}`);
  expect(log.status).toBe(200);
  expect(log.body._embedded.requestLog.length).toBeGreaterThan(0);
  for (const line of log.body._embedded.requestLog) expect(line.credential.id).toBe(own!.credentialId);
  const future = await director.get(`/v1/agency/request-log?from=${new Date(Date.now() + 3_600_000).toISOString()}`);
  expect(future.body._embedded.requestLog).toEqual([]);

  // A partner token has none of these scopes.
  expectErrorBody(await opsClient(world, own!).get('/v1/agency/rental-insurances'), 403, 'insufficient_scope');
});

test('When a director looks at the agency’s webhooks, then they see its endpoints and failed deliveries and redeliver one, never another agency’s', async () => {
  const [own, foreign] = world.agencies;
  const director = opsClient(world, await newDirector(world, own!.companyId, 'Dalva Diretora'));
  // A webhook endpoint of the agency, a delivery that failed, and its redelivery.
  const hooks = webhookClient(world, own!);
  const endpoint = await hooks.register('http://127.0.0.1:9/hook', ['rental_insurance.status_changed']);
  const sent = await hooks.test(endpoint.id);
  expect(sent.status).toBe(202);
  await world.db.webhookDelivery.update({ where: { id: sent.body.id }, data: { status: 'failed', nextAttemptAt: null } });
  const endpoints = await director.get('/v1/agency/webhook-endpoints');
  expect(endpoints.body._embedded.webhookEndpoints).toEqual([expect.objectContaining({ id: endpoint.id, companyId: own!.companyId })]);
  expect(endpoints.text).not.toContain('whsec_');
  const failed = await director.get(`/v1/agency/webhook-endpoints/${endpoint.id}/deliveries?status=failed`);
  expect(failed.body._embedded.webhookDeliveries.map((d: { id: string }) => d.id)).toEqual([sent.body.id]);
  expect((await director.get(`/v1/agency/webhook-endpoints/${endpoint.id}/deliveries?status=succeeded`)).body._embedded.webhookDeliveries).toEqual(
    [],
  );
  const again = await director.post(`/v1/agency/webhook-endpoints/${endpoint.id}/deliveries/${sent.body.id}/redeliver`);
  expect(again.status).toBe(202);
  expect(again.body).toMatchObject({ id: sent.body.id, status: 'pending' });

  const stranger = opsClient(world, await newDirector(world, foreign!.companyId, 'Outra Diretora'));
  expectErrorBody(await stranger.get(`/v1/agency/webhook-endpoints/${endpoint.id}/deliveries`), 404, 'not_found');
  expectErrorBody(await stranger.post(`/v1/agency/webhook-endpoints/${endpoint.id}/deliveries/${sent.body.id}/redeliver`), 404, 'not_found');
});
