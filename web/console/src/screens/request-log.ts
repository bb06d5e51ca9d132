/** The agency's request log: filter by outcome, operation and time; open one request. */
import { backOffice, must, problem, type Schemas } from '../api';
import { h, show, statusLine, table } from '../dom';
import { dateTime, t } from '../i18n';

type Line = Schemas['RequestLogLine'];
type Query = {
  statusClass?: Array<'2xx' | '3xx' | '4xx' | '5xx'>;
  operationId?: string;
  from?: string;
  to?: string;
  correlationId?: string;
  after?: string;
};

export async function requestLogScreen(query: Query = {}): Promise<void> {
  const status = statusLine();
  const outcome = h(
    'select',
    { id: 'log-status' },
    ...['', '2xx', '4xx', '5xx'].map((value) => h('option', { value, selected: query.statusClass?.[0] === value }, value || t('any'))),
  );
  const operation = h('input', { id: 'log-operation', type: 'text', maxlength: 100, value: query.operationId ?? '' });
  const from = h('input', { id: 'log-from', type: 'datetime-local', value: query.from ? query.from.slice(0, 16) : '' });
  const to = h('input', { id: 'log-to', type: 'datetime-local', value: query.to ? query.to.slice(0, 16) : '' });
  const form = h(
    'form',
    { class: 'filters' },
    h('div', {}, h('label', { for: 'log-status' }, t('statusClass')), outcome),
    h('div', {}, h('label', { for: 'log-operation' }, t('operation')), operation),
    h('div', {}, h('label', { for: 'log-from' }, t('from')), from),
    h('div', {}, h('label', { for: 'log-to' }, t('to')), to),
    h('button', { type: 'submit' }, t('filter')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void requestLogScreen({
      ...(outcome.value ? { statusClass: [outcome.value as '2xx'] } : {}),
      ...(operation.value.trim() ? { operationId: operation.value.trim() } : {}),
      ...(from.value ? { from: new Date(from.value).toISOString() } : {}),
      ...(to.value ? { to: new Date(to.value).toISOString() } : {}),
    });
  });
  let lines: Line[] = [];
  let next: string | undefined;
  try {
    const page = await must(backOffice.GET('/v1/agency/request-log', { params: { query: { ...query, limit: 50 } } }));
    lines = page._embedded.requestLog;
    next = page._links.next ? lines[lines.length - 1]?.cursor : undefined;
  } catch (error) {
    status.say(problem(error), 'error');
  }
  const detail = h('section', { 'aria-live': 'polite' });
  const open = (line: Line) => {
    detail.replaceChildren(h('h2', {}, `${line.method} ${line.path}`), h('pre', {}, JSON.stringify(line, null, 2)));
    detail.querySelector('h2')?.setAttribute('tabindex', '-1');
    (detail.querySelector('h2') as HTMLElement | null)?.focus();
  };
  show(
    t('requestLogTitle'),
    form,
    status,
    table(
      [t('when'), t('request'), t('answer'), t('credential'), ''],
      lines.map((line) => [
        dateTime(line.at),
        h('span', {}, h('code', {}, `${line.method} ${line.path}`), ` ${line.operationId}`),
        `${line.status}${line.error ? ` ${line.error.code}` : ''}`,
        line.credential.name,
        h('button', { type: 'button', class: 'secondary', 'aria-label': `${t('open')} ${line.correlationId}`, onclick: () => open(line) }, t('open')),
      ]),
    ),
    next ? h('button', { type: 'button', class: 'secondary', onclick: () => void requestLogScreen({ ...query, after: next }) }, t('more')) : null,
    detail,
  );
}
