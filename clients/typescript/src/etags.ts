/**
 * The latest ETag this client has seen for each guarantee, for If-Match. Guarantee versions only
 * grow (ETag `W/"<version>"`), so the highest version seen is the latest: an idempotent replay
 * answers the ETag stored with the first response, which may be older than one seen since, and
 * must not move the tracker back.
 */
export class EtagTracker {
  readonly #latest = new Map<number, { etag: string; version: number }>();

  remember(id: number, etag: string | null | undefined): void {
    if (!etag) return;
    const version = versionOf(etag);
    const known = this.#latest.get(id);
    if (version === undefined) {
      if (!known) this.#latest.set(id, { etag, version: -1 });
      return;
    }
    if (!known || version >= known.version) this.#latest.set(id, { etag, version });
  }

  latest(id: number): string | undefined {
    return this.#latest.get(id)?.etag;
  }

  forget(id: number): void {
    this.#latest.delete(id);
  }
}

function versionOf(etag: string): number | undefined {
  const match = /^(?:W\/)?"(\d+)"$/.exec(etag.trim());
  return match ? Number(match[1]) : undefined;
}
