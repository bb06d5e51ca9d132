/**
 * Weak ETags carry a resource version: `W/"<version>"`. This API compares If-Match weakly on
 * purpose (RFC 9110 would compare strongly) because its ETags are version numbers, not bytes.
 */
import { BadRequest, PreconditionFailed, PreconditionRequired } from '../errors';

export const etagOf = (version: number): string => `W/"${version}"`;

/**
 * The versions named by an If-Match header, or undefined when an optional one is absent. Throws
 * 428 when a required one is absent, and 400 for `*` or a malformed list.
 */
export function parseIfMatch(raw: string | undefined, required: boolean): number[] | undefined {
  if (raw === undefined || raw.trim() === '') {
    if (required) throw new PreconditionRequired();
    return undefined;
  }
  const versions: number[] = [];
  for (const part of raw.split(',')) {
    const tag = part.trim();
    if (tag === '*') {
      throw new BadRequest('if_match_invalid', 'If-Match must name a version (W/"<version>"); "*" is not accepted.', [
        'If-Match: "*" is not accepted',
      ]);
    }
    // RFC 9110 entity-tag syntax; a well-formed tag that names no version simply does not match (412).
    const match = /^(?:W\/)?"([\x21\x23-\x7e]*)"$/.exec(tag);
    if (!match) {
      throw new BadRequest('if_match_invalid', 'If-Match must hold ETags of the form W/"<version>".', [
        `If-Match: malformed entity tag ${JSON.stringify(tag.slice(0, 40))}`,
      ]);
    }
    versions.push(/^\d{1,9}$/.test(match[1]!) ? Number(match[1]) : -1);
  }
  return versions;
}

/** 412 with the current ETag unless If-Match names the current version. */
export function assertCurrentVersion(ifMatch: readonly number[], currentVersion: number): void {
  if (!ifMatch.includes(currentVersion)) throw new PreconditionFailed(etagOf(currentVersion));
}

/** If-None-Match on a read: true when one of the listed tags (or `*`) names the current version. */
export function noneMatchHits(raw: string | undefined, currentVersion: number): boolean {
  if (!raw) return false;
  return raw.split(',').some((part) => {
    const tag = part.trim();
    return tag === '*' || tag === etagOf(currentVersion) || tag === `"${currentVersion}"`;
  });
}
