/**
 * The reviewers' desk: the queue (oldest first, filterable by agency) and one guarantee with its data,
 * history, documents (downloadable) and signatures; approve with the terms, decline, request
 * information (either with files: multipart/form-data to the same operation), comment.
 * Each move is a back-office operation with If-Match (the version this screen shows), so a move on a
 * stale screen is refused (412) rather than applied to data the reviewer did not see.
 */
import { backOffice, keyed, must, problem } from '../api';
import { h, show, statusLine, table } from '../dom';
import { dateTime, money, t } from '../i18n';
import { documentsTable, type Download } from './document-parts';
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
    const [history, documents, signatures] = await Promise.all([
      must(backOffice.GET('/v1/rental-insurances/{id}/history', { params: { path, query: { pageSize: 200 } } })),
      must(backOffice.GET('/v1/rental-insurances/{id}/documents', { params: { path, query: { pageSize: 100 } } })),
      must(backOffice.GET('/v1/rental-insurances/{id}/signatures', { params: { path, query: { pageSize: 200 } } })),
    ]);
    const say = (text: string) => status.say(text, 'error');
    const download: Download = (document) =>
      backOffice.GET('/v1/rental-insurances/{id}/documents/{documentId}', { params: { path: { id, documentId: document.id } }, parseAs: 'blob' });
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
      const files = h('input', { id: 'review-files', type: 'file', multiple: true, accept: 'application/pdf,image/jpeg,image/png' });
      /** The move's body: JSON, or multipart/form-data (`comment` and `file` parts) when files are chosen. */
      const decision = (sent: (body: { comment?: string } | FormData | undefined) => Promise<unknown>, commentRequired: boolean) => {
        const chosen = [...(files.files ?? [])];
        if (chosen.length > 5) return status.say(t('tooManyFiles'), 'error');
        const comment = reason.value.trim() || commentRequired ? reason.value : undefined;
        if (chosen.length === 0) return after(sent(comment === undefined ? undefined : { comment }));
        const form = new FormData();
        if (comment !== undefined) form.append('comment', comment);
        for (const file of chosen) form.append('file', file, file.name);
        after(sent(form));
      };
      moves.push(
        approve,
        h(
          'div',
          { class: 'card' },
          h('label', { for: 'review-comment' }, t('comment')),
          reason,
          h('label', { for: 'review-files' }, t('attachFiles')),
          files,
          h(
            'div',
            { class: 'actions' },
            h(
              'button',
              {
                type: 'button',
                onclick: () =>
                  decision(
                    (body) =>
                      must(
                        backOffice.POST('/v1/rental-insurances/{id}/request-information', {
                          params: params(),
                          body: body as { comment: string },
                        }),
                      ),
                    true,
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
                  decision(
                    (body) => must(backOffice.POST('/v1/rental-insurances/{id}/decline', { params: params(), body: body as { comment?: string } })),
                    false,
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
      historyTable(history._embedded.historyEntries, download, say),
      h('h2', {}, t('documents')),
      documentsTable(documents._embedded.documents, download, say),
      h('h2', {}, t('signatures')),
      signaturesTable(signatures._embedded.signatures),
    );
  } catch (error) {
    show(t('guaranteeTitle', { id }), status);
    status.say(problem(error), 'error');
  }
}
