/**
 * A document's download: its bytes streamed from their store (never whole in memory), with the
 * headers a partner's tooling and a browser need to handle them safely: the detected type and
 * length, `Content-Disposition: attachment` (RFC 6266, `filename*` for a non-ASCII name), a strong
 * ETag and `Repr-Digest` (RFC 9530) from the SHA-256, `nosniff`, and a `sandbox` CSP so that bytes
 * opened in a browser run nothing in the API's origin.
 */
import { create as contentDisposition } from 'content-disposition';
import { StreamedBody } from '../../http/http-result';
import { EXTENSIONS, type DocumentType } from './content-types';
import type { StoredDocument } from './document-repository';
import type { DocumentStores } from './document-store';

export function downloadOf(document: StoredDocument, stores: DocumentStores) {
  const size = Number(document.size);
  const name = document.fileName ?? `document-${document.id}.${EXTENSIONS[document.contentType as DocumentType] ?? 'bin'}`;
  return {
    status: 200 as const,
    body: new StreamedBody(document.contentType, size, () => stores.of(document.store).open(document.storageKey, size)),
    entityTag: document.sha256,
    headers: {
      'Content-Disposition': contentDisposition(name, { type: 'attachment' }),
      'Repr-Digest': `sha-256=:${Buffer.from(document.sha256, 'hex').toString('base64')}:`,
      'X-Content-Type-Options': 'nosniff' as const,
      'Content-Security-Policy': 'sandbox' as const,
    },
  };
}
