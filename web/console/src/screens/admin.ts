/** Staff with ops:credentials:admin: any agency's credentials (never a secret), revocation, the audit log. */
import { backOffice, keyed, must, problem } from '../api';
import { h, show, statusLine, table } from '../dom';
import { dateTime, t } from '../i18n';

export async function adminCredentialsScreen(companyId = ''): Promise<void> {
  const status = statusLine();
  const company = h('input', { id: 'admin-company', type: 'text', maxlength: 100, value: companyId });
  const form = h(
    'form',
    { class: 'filters' },
    h('div', {}, h('label', { for: 'admin-company' }, t('company')), company),
    h('button', { type: 'submit' }, t('filter')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void adminCredentialsScreen(company.value.trim());
  });
  try {
    const page = await must(backOffice.GET('/v1/credentials', { params: { query: { pageSize: 50, ...(companyId ? { companyId } : {}) } } }));
    const revoke = (credentialId: string) => () => {
      if (!window.confirm(t('confirmRevokeCredential'))) return;
      void must(backOffice.POST('/v1/credentials/{credentialId}/revoke', { params: { path: { credentialId }, ...keyed() } }))
        .then(() => adminCredentialsScreen(companyId))
        .catch((error: unknown) => status.say(problem(error), 'error'));
    };
    show(
      t('adminCredentialsTitle'),
      form,
      status,
      table(
        [t('company'), t('kind'), t('displayName'), t('clientId'), t('lastUse'), t('status'), ''],
        page._embedded.credentials.map((credential) => {
          const used = credential.secrets
            .map((secret) => secret.lastUse.at)
            .filter((at): at is string => at !== null)
            .sort()
            .pop();
          return [
            credential.companyId,
            credential.kind,
            credential.displayName,
            h('code', {}, credential.clientId),
            used ? dateTime(used) : t('never'),
            credential.revokedAt ? t('revoked') : t('active'),
            credential.revokedAt ? '' : h('button', { type: 'button', class: 'danger', onclick: revoke(credential.id) }, t('revokeCredential')),
          ];
        }),
      ),
    );
  } catch (error) {
    show(t('adminCredentialsTitle'), form, status);
    status.say(problem(error), 'error');
  }
}

export async function auditScreen(): Promise<void> {
  const status = statusLine();
  try {
    const page = await must(backOffice.GET('/v1/audit-log', { params: { query: { pageSize: 50 } } }));
    show(
      t('auditTitle'),
      table(
        [t('when'), t('actor'), t('action'), t('company'), t('details')],
        page._embedded.auditLogEntries.map((entry) => [
          dateTime(entry.createdAt),
          entry.actor,
          entry.action,
          entry.companyId ?? '',
          h('code', {}, JSON.stringify(entry.details)),
        ]),
      ),
    );
  } catch (error) {
    show(t('auditTitle'), status);
    status.say(problem(error), 'error');
  }
}
