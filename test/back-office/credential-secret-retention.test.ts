/**
 * A credential's secrets stay few in every answer (issue 23 item 1): a credential view shows its
 * active secrets and its latest revoked ones, at most 10, and a revoked secret is deleted 30 days
 * after its revocation. A director that rotates in a loop cannot grow the answer; a secret older
 * than the ones shown can still be revoked by its id (409 already_revoked when it was).
 */
import { purgeExpired } from '../../src/scheduler/housekeeping';
import { expectErrorBody } from '../support/error-body';
import { useTestApp } from '../support/test-app';
import { createViaApi, type CredentialBody } from './agency-credentials';
import { useAgencyDirector } from './ops-support';

const world = useTestApp();
const agency = useAgencyDirector(world);
const { ops } = agency;

const view = async (id: string): Promise<CredentialBody> => {
  const list = await ops.get('/v1/agency/credentials?pageSize=200');
  expect(list.status).toBe(200);
  return (list.body._embedded.credentials as CredentialBody[]).find((credential) => credential.id === id)!;
};

/** Rotation as a director does it: issue a second secret, revoke the first. Returns the revoked one's id. */
async function rotate(credentialId: string, current: string): Promise<string> {
  const issued = await ops.post(`/v1/agency/credentials/${credentialId}/secrets`);
  expect(issued.status).toBe(201);
  const revoked = await ops.post(`/v1/agency/credentials/${credentialId}/secrets/${current}/revoke`);
  expect(revoked.status).toBe(200);
  return issued.body.secret.id as string;
}

describe('When a director rotates a secret twelve times', () => {
  it('then the credential shows its active secret and its 9 latest revoked ones, oldest first', async () => {
    const { credential, secret } = await createViaApi(ops);
    const revoked: string[] = [];
    let current = secret.id;
    for (let i = 0; i < 12; i++) {
      revoked.push(current);
      current = await rotate(credential.id, current);
    }

    const shown = (await view(credential.id)).secrets;
    expect(shown.map((s) => s.id)).toEqual([...revoked.slice(-9), current]);
    expect(shown.at(-1)!.revokedAt).toBeNull();

    // The first secret is no longer shown, and is still revoked by its id: 409, not 404.
    expectErrorBody(await ops.post(`/v1/agency/credentials/${credential.id}/secrets/${revoked[0]}/revoke`), 409, 'already_revoked');
  });
});

describe('When a revoked secret is 30 days old', () => {
  it('then housekeeping deletes it; active secrets and younger revoked ones stay', async () => {
    const { credential, secret } = await createViaApi(ops);
    const active = await rotate(credential.id, secret.id);
    await world.db.credentialSecret.update({ where: { id: secret.id }, data: { revokedAt: new Date(Date.now() - 30 * 86_400_000 - 60_000) } });
    const second = await rotate(credential.id, active);

    const purged = await purgeExpired(world.db, 24);

    expect(purged.secrets).toBeGreaterThanOrEqual(1);
    expect((await view(credential.id)).secrets.map((s) => s.id)).toEqual([active, second]);
    expectErrorBody(await ops.post(`/v1/agency/credentials/${credential.id}/secrets/${secret.id}/revoke`), 404, 'not_found');
  });
});
