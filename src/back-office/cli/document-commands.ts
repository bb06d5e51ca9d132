/**
 * Admin tool: moves the documents' bytes between PostgreSQL and the S3-compatible store
 * (docs/documents.md, "Moving documents from one store to the other"). It needs DOCUMENT_STORE_URL
 * whichever way it moves: the S3 store is one end or the other.
 */
import { documentStores } from '../../guarantees/documents/document-store';
import { moveDocuments } from '../../guarantees/documents/move-documents';
import { requiredOption, UsageError, type CliCommand } from './cli-command';

export const documentCommands: CliCommand[] = [
  {
    name: 'documents move',
    summary: "Moves every document's bytes to one store (checked by SHA-256, rows switched one by one, old copies deleted last)",
    options: {
      to: { description: 'postgres or s3 (DOCUMENT_STORE_URL names the S3 store either way)', required: true },
    },
    async run(ctx) {
      const to = requiredOption(ctx, 'to');
      if (to !== 'postgres' && to !== 's3') throw new UsageError('--to takes postgres or s3');
      if (!ctx.config.DOCUMENT_STORE_URL) throw new UsageError('DOCUMENT_STORE_URL must name the S3 store, which is one end of the move');
      const stores = await documentStores(ctx.db, ctx.config.DOCUMENT_STORE_URL);
      try {
        const report = await moveDocuments(ctx.db, stores, to);
        return {
          exitCode: report.failed.length > 0 ? 1 : 0,
          json: report,
          text: [
            `${report.moved} document blob(s), ${report.bytes} bytes, moved from ${report.from} to ${report.to}.`,
            ...(report.failed.length > 0
              ? [
                  `${report.failed.length} left in ${report.from} (run again once fixed):`,
                  ...report.failed.map((f) => `  ${f.companyId} ${f.sha256}: ${f.reason}`),
                ]
              : []),
          ],
        };
      } finally {
        await stores.current.close();
      }
    },
  },
];
