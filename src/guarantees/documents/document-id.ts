import { documentNotFound } from './company-documents';

/** The path's document id as the database's int8 (the pipeline has checked it is a positive integer). */
export function documentId(id: number): bigint {
  if (!Number.isSafeInteger(id) || id < 1) throw documentNotFound();
  return BigInt(id);
}
