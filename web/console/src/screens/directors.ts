/**
 * Staff with ops:credentials:admin: the agencies' directors, and re-invitation of one who lost their
 * passkeys (their passkeys and sessions stop working at once). The new enrolment link is shown once,
 * with a copy button, held by this page only: gone on reload or on the next screen.
 */
import { backOffice, keyed, must, problem } from '../api';
import { h, show, statusLine, table } from '../dom';
import { dateTime, t } from '../i18n';

function linkOnce(name: string, link: string): HTMLElement {
  const copied = h('span', { role: 'status', 'aria-live': 'polite' });
  return h(
    'div',
    { class: 'card', id: 'link-once' },
    h('p', {}, h('strong', {}, t('reinviteLinkOnce', { name }))),
    h('p', { class: 'secret', 'data-secret': 'once' }, link),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { type: 'button', onclick: () => void navigator.clipboard.writeText(link).then(() => (copied.textContent = t('copied'))) },
        t('copy'),
      ),
      copied,
    ),
  );
}

export async function directorsScreen(companyId = '', shown?: HTMLElement): Promise<void> {
  const status = statusLine();
  const company = h('input', { id: 'directors-company', type: 'text', maxlength: 100, value: companyId });
  const form = h(
    'form',
    { class: 'filters' },
    h('div', {}, h('label', { for: 'directors-company' }, t('agency')), company),
    h('button', { type: 'submit' }, t('filter')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void directorsScreen(company.value.trim());
  });
  const reinvite = (personId: string, name: string) => () => {
    if (!window.confirm(t('confirmReinvite', { name }))) return;
    void must(backOffice.POST('/v1/directors/{personId}/reinvite', { params: { path: { personId }, ...keyed() } }))
      .then((answer) => directorsScreen(companyId, answer.enrolmentLink ? linkOnce(name, answer.enrolmentLink) : undefined))
      .catch((error: unknown) => status.say(problem(error), 'error'));
  };
  try {
    const page = await must(backOffice.GET('/v1/directors', { params: { query: { pageSize: 50, ...(companyId ? { companyId } : {}) } } }));
    show(
      t('directorsTitle'),
      h('p', {}, t('directorsIntro')),
      form,
      status,
      shown,
      table(
        [t('agency'), t('personName'), t('passkeyCount'), t('openSessions'), t('createdAt'), ''],
        page._embedded.directors.map((director) => [
          director.companyId,
          director.name,
          director.passkeys,
          director.sessions,
          dateTime(director.createdAt),
          h('button', { type: 'button', class: 'danger', onclick: reinvite(director.id, director.name) }, `${t('reinvite')}: ${director.name}`),
        ]),
        t('directorsTitle'),
      ),
    );
  } catch (error) {
    show(t('directorsTitle'), form, status);
    status.say(problem(error), 'error');
  }
}
