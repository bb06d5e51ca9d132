/**
 * Issues the contract document of a change that requests signatures (an accept) or reissues the
 * contract: renders it (contract-pdf.ts), stores its bytes and attaches it to the change's history
 * entry in the change's transaction (attach-documents.ts). In the PostgreSQL store the bytes are
 * written in that transaction; in an object store they are staged first (a record committed on its
 * own), so that a change that rolls back leaves only bytes that housekeeping finds and deletes.
 */
import { createHash } from 'node:crypto';
import type { Database } from '../../database/prisma-client';
import type { UnitOfWork } from '../../database/unit-of-work';
import type { Actor } from '../../auth/actors';
import type { GuaranteeRow } from '../guarantee-mapper';
import type { HistoryRow } from '../history';
import { addDocumentsToEntry } from './attach-documents';
import { contractFileName, renderContract } from './contract-pdf';
import type { KeptBytes } from './document-repository';
import type { DocumentStores } from './document-store';
import { newStorageKey } from './upload-staging';

export interface ContractIssuer {
  /** The contract of `row` (already changed: its new version), attached to the change's `entry` by `actor`; answers its document id. */
  issue(unit: UnitOfWork, row: GuaranteeRow, entry: Omit<HistoryRow, 'documents'>, actor: Actor, at: Date | undefined): Promise<bigint>;
}

export function contractIssuer(db: Database, stores: DocumentStores): ContractIssuer {
  /** The contract's bytes, stored (or found stored: the same bytes are kept once per agency). */
  const stored = async (unit: UnitOfWork, row: GuaranteeRow, at: Date | undefined): Promise<KeptBytes> => {
    const bytes = await renderContract(row, at ?? new Date());
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const described = { fileName: contractFileName(row), contentType: 'application/pdf', size: bytes.length, sha256 };
    const existing = await unit.db.documentBlob.findUnique({ where: { companyId_sha256: { companyId: row.companyId, sha256 } } });
    if (existing) return { ...described, staged: { key: existing.storageKey, store: existing.store } };
    const store = stores.current;
    const staged = { key: newStorageKey(row.companyId), store: store.name };
    if (store.name !== 'postgres') await db.documentUpload.create({ data: { storageKey: staged.key, companyId: row.companyId, store: store.name } });
    await store.put(unit.db, staged.key, bytes);
    return { ...described, staged };
  };
  return {
    async issue(unit, row, entry, actor, at) {
      const [contract] = await addDocumentsToEntry(unit, row.companyId, entry, actor, [await stored(unit, row, at)]);
      return contract!.id;
    },
  };
}
