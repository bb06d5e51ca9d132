/**
 * Weak ETags carry a resource version: `W/"<version>"`. This API compares If-Match weakly on
 * purpose (RFC 9110 would compare strongly) because its ETags are version numbers, not bytes: the
 * `W/` prefix is ignored, and the quoted part is compared as an opaque string (RFC 9110 §8.8.3.2),
 * so `W/"01"` does not name version 1.
 */
import { BadRequest, PreconditionFailed, PreconditionRequired } from '../errors';

export const etagOf = (version: number): string => `W/"${version}"`;

/**
 * The opaque tags (the quoted part, without `W/`) of an If-Match header, or undefined when an
 * optional one is absent. Throws 428 when a required one is absent, and 400 for `*` or a malformed list.
 */
export function parseIfMatch(raw: string | undefined, required: boolean): string[] | undefined {
  if (raw === undefined || raw.trim() === '') {
    if (required) throw new PreconditionRequired();
    return undefined;
  }
  const tags: string[] = [];
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
    tags.push(match[1]!);
  }
  return tags;
}

/** 412 with the current ETag unless If-Match names the current version, character for character. */
export function assertCurrentVersion(ifMatch: readonly string[], currentVersion: number): void {
  if (!ifMatch.includes(String(currentVersion))) throw new PreconditionFailed(etagOf(currentVersion));
}

/** A strong entity tag of bytes that never change (a document's SHA-256). */
export const strongTagOf = (opaque: string): string => `"${opaque}"`;

/** If-None-Match against a strong tag, compared weakly as RFC 9110 §13.1.2 says: `W/` is ignored. */
export function noneMatchHitsTag(raw: string | undefined, opaque: string): boolean {
  if (!raw) return false;
  return raw.split(',').some((part) => {
    const tag = part.trim();
    return tag === '*' || tag === strongTagOf(opaque) || tag === `W/${strongTagOf(opaque)}`;
  });
}

/** If-None-Match on a read: true when one of the listed tags (or `*`) names the current version. */
export function noneMatchHits(raw: string | undefined, currentVersion: number): boolean {
  if (!raw) return false;
  return raw.split(',').some((part) => {
    const tag = part.trim();
    return tag === '*' || tag === etagOf(currentVersion) || tag === `"${currentVersion}"`;
  });
}
