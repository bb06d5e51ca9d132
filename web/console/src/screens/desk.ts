/**
 * The reviewers' desk: the queue (oldest first, filterable by agency) and one guarantee with its data,
 * history, documents and signatures; approve with the terms, decline, request information, comment.
 * Each move is a back-office operation with If-Match (the version this screen shows), so a move on a
 * stale screen is refused (412) rather than applied to data the reviewer did not see.
 */
import { backOffice, keyed, must, problem } from '../api';
import { h, show, statusLine, table } from '../dom';
import { dateTime, money, t } from '../i18n';
import { guaranteeSummary, historyTable, signaturesTable } from './guarantee-parts';

export async function queueScreen(companyId = ''): Promise<void> {
  const status = statusLine();
  const agency = h('input', { id: 'queue-agency', type: 'text', maxlength: 100, value: companyId });
  const form = h(
    'form',
    { class: 'filters' },
    h('div', {}, h('label', { for: 'queue-agency' }, t('agency')), agency),
    h('button', { type: 'submit' }, t('filter')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void queueScreen(agency.value.trim());
  });
  try {
    const queue = await must(backOffice.GET('/v1/review-queue', { params: { query: { pageSize: 50, ...(companyId ? { companyId } : {}) } } }));
    show(
      t('queueTitle'),
      h('p', {}, t('queueIntro')),
      form,
      table(
        ['#', t('agency'), t('tenant'), t('rent'), t('status'), t('waitingSince')],
        queue._embedded.reviewQueue.map((item) => [
          h('a', { href: `#/review/${item.id}` }, `${t('review')} ${item.id}`),
          item.companyId,
          item.tenantName,
          money(item.rentalAmount),
          item.status,
          dateTime(item.waitingSince),
        ]),
      ),
    );
  } catch (error) {
    show(t('queueTitle'), form, status);
    status.say(problem(error), 'error');
  }
}

const field = (id: string, label: string, attributes: Record<string, string | number | boolean>) => [
  h('label', { for: id }, label),
  h('input', { id, ...attributes }),
];

export async function reviewScreen(id: number): Promise<void> {
  const status = statusLine();
  const path = { id };
  let guaranteeResult;
  try {
    guaranteeResult = await backOffice.GET('/v1/rental-insurances/{id}', { params: { path } });
    const guarantee = await must(Promise.resolve(guaranteeResult));
    const version = guaranteeResult.response.headers.get('ETag') ?? undefined;
    const [history, signatures] = await Promise.all([
      must(backOffice.GET('/v1/rental-insurances/{id}/history', { params: { path, query: { pageSize: 200 } } })),
      must(backOffice.GET('/v1/rental-insurances/{id}/signatures', { params: { path, query: { pageSize: 200 } } })),
    ]);
    const params = () => ({ path, header: { ...keyed().header, ...(version ? { 'If-Match': version } : {}) } });
    const after = (call: Promise<unknown>) => void call.then(() => reviewScreen(id)).catch((error: unknown) => status.say(problem(error), 'error'));
    const moves: HTMLElement[] = [];
    if (guarantee.status === 'under_review') {
      const approve = h(
        'form',
        { class: 'card', 'aria-labelledby': 'approve-heading' },
        h('h2', { id: 'approve-heading' }, t('approveTitle')),
        ...field('installmentAmount', t('installmentAmount'), { type: 'number', step: '0.01', min: '0.01', required: true }),
        ...field('coverageLimit', t('coverageLimit'), { type: 'number', step: '0.01', min: '0.01', required: true }),
        ...field('rentCoverageLimit', t('rentCoverageLimit'), { type: 'number', step: '0.01', min: '0.01', required: true }),
        ...field('startBillingDate', t('startBillingDate'), { type: 'date', required: true }),
        h('div', { class: 'actions' }, h('button', { type: 'submit' }, t('approve'))),
      );
      approve.addEventListener('submit', (event) => {
        event.preventDefault();
        const value = (name: string) => (approve.querySelector(`#${name}`) as HTMLInputElement).value;
        after(
          must(
            backOffice.POST('/v1/rental-insurances/{id}/approve', {
              params: params(),
              body: {
                installmentAmount: Number(value('installmentAmount')),
                coverageLimit: Number(value('coverageLimit')),
                rentCoverageLimit: Number(value('rentCoverageLimit')),
                startBillingDate: value('startBillingDate'),
              },
            }),
          ),
        );
      });
      const reason = h('textarea', { id: 'review-comment', rows: 3, maxlength: 2000 });
      moves.push(
        approve,
        h(
          'div',
          { class: 'card' },
          h('label', { for: 'review-comment' }, t('comment')),
          reason,
          h(
            'div',
            { class: 'actions' },
            h(
              'button',
              {
                type: 'button',
                onclick: () =>
                  after(
                    must(backOffice.POST('/v1/rental-insurances/{id}/request-information', { params: params(), body: { comment: reason.value } })),
                  ),
              },
              t('requestInformation'),
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'danger',
                onclick: () =>
                  after(
                    must(
                      backOffice.POST('/v1/rental-insurances/{id}/decline', {
                        params: params(),
                        body: reason.value.trim() ? { comment: reason.value } : undefined,
                      }),
                    ),
                  ),
              },
              t('decline'),
            ),
          ),
        ),
      );
    }
    const comment = h('textarea', { id: 'staff-comment', rows: 2, maxlength: 2000 });
    const commentForm = h(
      'form',
      { class: 'card' },
      h('label', { for: 'staff-comment' }, t('addComment')),
      comment,
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, t('send'))),
    );
    commentForm.addEventListener('submit', (event) => {
      event.preventDefault();
      after(must(backOffice.POST('/v1/rental-insurances/{id}/comments', { params: { path, ...keyed() }, body: { comment: comment.value } })));
    });
    show(
      t('guaranteeTitle', { id }),
      h('p', {}, `${t('agency')}: ${guaranteeResult.response.headers.get('Company-Id') ?? ''}`),
      guaranteeSummary(guarantee),
      status,
      ...moves,
      commentForm,
      h('h2', {}, t('history')),
      historyTable(history._embedded.historyEntries),
      h('h2', {}, t('signatures')),
      signaturesTable(signatures._embedded.signatures),
    );
  } catch (error) {
    show(t('guaranteeTitle', { id }), status);
    status.say(problem(error), 'error');
  }
}
