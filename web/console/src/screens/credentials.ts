/**
 * The director's integrations section: the agency's credentials, each secret's last use, creation
 * with only the scopes needed, rotation (issue a second secret, watch it start issuing tokens, revoke
 * the old one), revocation. A new secret is shown once, held only by this page until it changes
 * screen: a reload shows it no more.
 */
import { backOffice, keyed, must, problem, type Schemas } from '../api';
import { h, show, statusLine, table } from '../dom';
import { dateTime, t, type Key } from '../i18n';

const SCOPES: Array<[Schemas['PartnerScope'], Key]> = [
  ['ri:rental-insurances:read', 'scope_ri_read'],
  ['ri:rental-insurances:write', 'scope_ri_write'],
  ['ri:financial:read', 'scope_fin_read'],
  ['ri:webhooks:manage', 'scope_webhooks'],
  ['ri:events:read', 'scope_events'],
  ['ri:request-log:read', 'scope_log'],
];

/** The secret of a creation or rotation, with a copy button: in this page only, never stored. */
function secretOnce(secret: string): HTMLElement {
  const copied = h('span', { role: 'status', 'aria-live': 'polite' });
  return h(
    'div',
    { class: 'card', id: 'secret-once' },
    h('p', {}, h('strong', {}, t('secretOnce'))),
    h('p', { class: 'secret', 'data-secret': 'once' }, secret),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { type: 'button', onclick: () => void navigator.clipboard.writeText(secret).then(() => (copied.textContent = t('copied'))) },
        t('copy'),
      ),
      copied,
    ),
  );
}

function secretsTable(credential: Schemas['Credential'], act: (action: () => Promise<unknown>, confirm?: string) => void): HTMLElement {
  const active = credential.secrets.filter((secret) => !secret.revokedAt);
  return table(
    [t('secret'), t('createdAt'), t('status'), t('lastUse'), t('tokens24h'), ''],
    credential.secrets.map((secret) => [
      h('code', {}, secret.id.slice(0, 8)),
      dateTime(secret.createdAt),
      secret.revokedAt ? `${t('revoked')} ${dateTime(secret.revokedAt)}` : t('active'),
      secret.lastUse.at ? `${dateTime(secret.lastUse.at)} ${t('fromAddress', { address: secret.lastUse.address ?? '?' })}` : t('never'),
      String(secret.lastUse.tokensLast24h),
      !secret.revokedAt && !credential.revokedAt && active.length > 0
        ? h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              'aria-label': `${t('revokeSecret')} ${secret.id.slice(0, 8)}`,
              onclick: () =>
                act(
                  () =>
                    must(
                      backOffice.POST('/v1/agency/credentials/{credentialId}/secrets/{secretId}/revoke', {
                        params: { path: { credentialId: credential.id, secretId: secret.id }, ...keyed() },
                      }),
                    ),
                  t('confirmRevokeSecret'),
                ),
            },
            t('revokeSecret'),
          )
        : '',
    ]),
    `${t('secrets')}: ${credential.displayName}`,
  );
}

export async function credentialsScreen(revealed?: HTMLElement): Promise<void> {
  const status = statusLine();
  const act = (action: () => Promise<unknown>, confirmText?: string) => {
    if (confirmText && !window.confirm(confirmText)) return;
    void action()
      .then((result) => {
        const secret = (result as { secret?: { clientSecret?: string | null } } | undefined)?.secret?.clientSecret;
        return credentialsScreen(secret ? secretOnce(secret) : undefined);
      })
      .catch((error: unknown) => status.say(problem(error), 'error'));
  };
  let page: Schemas['CredentialPage'];
  try {
    page = await must(backOffice.GET('/v1/agency/credentials', { params: { query: { pageSize: 50 } } }));
  } catch (error) {
    show(t('credentialsTitle'), status);
    status.say(problem(error), 'error');
    return;
  }
  const cards = page._embedded.credentials.map((credential) =>
    h(
      'section',
      { class: 'card', 'aria-labelledby': `credential-${credential.id}` },
      h('h2', { id: `credential-${credential.id}` }, credential.displayName, credential.revokedAt ? ` (${t('revoked')})` : ''),
      h('p', {}, `${t('clientId')}: `, h('code', {}, credential.clientId)),
      h('p', {}, `${t('scopes')}: ${credential.scopes.join(', ')}`),
      secretsTable(credential, act),
      credential.revokedAt
        ? null
        : h(
            'div',
            { class: 'actions' },
            h(
              'button',
              {
                type: 'button',
                onclick: () =>
                  act(() =>
                    must(
                      backOffice.POST('/v1/agency/credentials/{credentialId}/secrets', {
                        params: { path: { credentialId: credential.id }, ...keyed() },
                      }),
                    ),
                  ),
              },
              t('rotate'),
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'danger',
                onclick: () =>
                  act(
                    () =>
                      must(
                        backOffice.POST('/v1/agency/credentials/{credentialId}/revoke', {
                          params: { path: { credentialId: credential.id }, ...keyed() },
                        }),
                      ),
                    t('confirmRevokeCredential'),
                  ),
              },
              t('revokeCredential'),
            ),
          ),
    ),
  );
  show(
    t('credentialsTitle'),
    h('p', {}, t('credentialsIntro')),
    h('p', { class: 'hint' }, t('rotateHint')),
    revealed ?? null,
    status,
    createForm(act),
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: () => void credentialsScreen() }, t('refresh'))),
    ...(cards.length > 0 ? cards : [h('p', {}, t('none'))]),
  );
}

function createForm(act: (action: () => Promise<unknown>) => void): HTMLElement {
  const name = h('input', { id: 'credential-name', type: 'text', maxlength: 200, required: true });
  const boxes = SCOPES.map(([scope, key]) => ({ scope, box: h('input', { type: 'checkbox', value: scope, id: `scope-${scope}` }), key }));
  const key = crypto.randomUUID(); // one logical creation: a retry after a lost answer replays it
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'create-heading' },
    h('h2', { id: 'create-heading' }, t('newCredential')),
    h('label', { for: 'credential-name' }, t('displayName')),
    name,
    h(
      'fieldset',
      {},
      h('legend', {}, t('scopesLegend')),
      ...boxes.map(({ scope, box, key: words }) => h('label', { for: `scope-${scope}` }, box, h('span', {}, t(words), ' ', h('code', {}, scope)))),
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, t('create'))),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const scopes = boxes.filter(({ box }) => box.checked).map(({ scope }) => scope);
    act(() => must(backOffice.POST('/v1/agency/credentials', { params: keyed(key), body: { displayName: name.value, scopes } })));
  });
  return form;
}
