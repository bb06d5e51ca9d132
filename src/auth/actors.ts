/**
 * Who a write is signed with in a guarantee's history: a credential's display name, a staff
 * member's name, or the service itself. The service's own names live here, beside the credentials,
 * because no credential may take one (reserved-names.ts); history (src/guarantees/history.ts)
 * re-exports them for the writes that sign with them.
 */
export interface Actor {
  name: string;
  serviceAccount: boolean;
}

export const SYSTEM_ACTOR: Actor = { name: 'system', serviceAccount: true };
/** The staff identity of the sandbox's review decisions in history (src/sandbox/). */
export const SANDBOX_REVIEWER: Actor = { name: 'Sandbox reviewer', serviceAccount: false };
/** Every name the service itself signs history with. */
export const SERVICE_ACTORS: readonly Actor[] = [SYSTEM_ACTOR, SANDBOX_REVIEWER];
