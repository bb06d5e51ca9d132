/**
 * Names a credential may not take: the names the service itself signs history with (`system`,
 * `Sandbox reviewer`) and the names of the service's staff, who sign history under their own
 * names. A partner credential's writes appear in the history under its display name, so one of
 * these would pass its writes off as the service's or a reviewer's in the history a partner reads.
 *
 * Look-alikes count as the name: two names are the same when their skeletons are equal, so case,
 * spaces, punctuation, accents, compatibility forms (full-width, mathematical letters) and the
 * confusable characters of Unicode TR39 (Cyrillic `ѕуѕtеm`) change nothing.
 */
import { rectifyConfusion } from 'unicode-confusables';
import type { Queryable } from '../database/prisma-client';
import { SERVICE_ACTORS } from './actors';

/** Staff credentials' display names carry this suffix (credentials.ts); the person's name is what history shows. */
const STAFF_SUFFIX = /\s*\(staff\)\s*$/i;

/**
 * The comparison forms of a name (never shown): compatibility-folded, without marks, TR39
 * prototypes, lower-cased, letters and digits only. TR39 maps each character as written and its
 * prototypes are case-sensitive (Cyrillic `В` maps to `B` but `в` to `ʙ`, Latin `I` to `l` but `i`
 * to itself), so a name has three forms: from the name as written, lower-cased and upper-cased.
 * Two names are alike when they share one.
 */
export function nameSkeletons(name: string): Set<string> {
  return new Set([name, name.toLowerCase(), name.toUpperCase()].map(skeleton));
}

/** The mapping runs on the text as given, then again after lower-casing, until nothing changes. */
function skeleton(name: string): string {
  const withoutMarks = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '');
  let current = withoutMarks(name.normalize('NFKC'));
  for (let round = 0; round < 4; round++) {
    const next = withoutMarks(rectifyConfusion(current)).toLowerCase();
    if (next === current) break;
    current = next;
  }
  return current.replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * The reserved name that `displayName` looks like, if any: the service's own names for every kind
 * of credential, and for partner credentials also the names of staff members (revoked ones
 * included: their names remain in history).
 */
export async function reservedNameLike(db: Queryable, displayName: string, kind: 'partner' | 'staff' | 'director'): Promise<string | undefined> {
  const forms = nameSkeletons(displayName);
  const alike = (name: string) => [...nameSkeletons(name)].some((form) => forms.has(form));
  const service = SERVICE_ACTORS.map((actor) => actor.name).find(alike);
  if (service || kind !== 'partner') return service;
  const staff = await db.credential.findMany({ where: { kind: 'staff' }, select: { personName: true, displayName: true } });
  for (const member of staff) {
    const name = [member.personName, member.displayName.replace(STAFF_SUFFIX, '')].find((candidate) => candidate && alike(candidate));
    if (name) return name;
  }
  return undefined;
}
