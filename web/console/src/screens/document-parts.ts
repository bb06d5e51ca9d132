/**
 * A guarantee's documents as the director and the reviewer see them: a table (name, type, size, who
 * attached it, when) and a download button per document. A download is a fetch with the session
 * (the back-office operation, with its `X-Console-Request` header) read as a Blob and saved through
 * a short-lived object URL: no link carries the session, and nothing is kept in browser storage.
 */
import { must, problem, type Schemas } from '../api';
import { h, table } from '../dom';
import { dateTime, t } from '../i18n';

export type DocumentView = Schemas['Document'];
/** Fetches one document's bytes through the screen's back-office operation (staff's or the agency's). */
export type Download = (document: DocumentView) => Promise<{ data?: Blob; error?: unknown; response: Response }>;

const nameOf = (document: DocumentView) => document.fileName ?? `document-${document.id}`;

export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Saves the document under its name; a refusal is said on the screen's status line. */
async function save(document: DocumentView, download: Download, say: (text: string) => void): Promise<void> {
  try {
    const blob = await must(download(document));
    const url = URL.createObjectURL(blob);
    const link = h('a', { href: url, download: nameOf(document), hidden: true });
    window.document.body.append(link);
    link.click();
    link.remove();
    // The browser has taken the bytes once the click is handled; the URL is not needed after.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } catch (error) {
    say(problem(error));
  }
}

/** A download button per document (its accessible name says which document). */
export function downloadButton(document: DocumentView, download: Download, say: (text: string) => void): HTMLButtonElement {
  return h(
    'button',
    { type: 'button', class: 'secondary', 'aria-label': `${t('download')}: ${nameOf(document)}`, onclick: () => void save(document, download, say) },
    nameOf(document),
  );
}

export function documentsTable(documents: DocumentView[], download: Download, say: (text: string) => void): HTMLElement {
  return documents.length === 0
    ? h('p', {}, t('none'))
    : table(
        [t('fileName'), t('kind'), t('size'), t('by'), t('when')],
        documents.map((document) => [
          downloadButton(document, download, say),
          document.contentType,
          size(document.size),
          document.creator.name,
          dateTime(document.createdAt),
        ]),
        t('documents'),
      );
}
