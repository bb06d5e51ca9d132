/**
 * Outcome of validating one field. `reason` is a short lower-case phrase meant to be
 * appended to a field path by the caller (e.g. "tenant.document invalid check digits"),
 * so validators never need to know where the value came from.
 */
export type ValidationResult = { ok: true; value: string } | { ok: false; reason: string };

export const valid = (value: string): ValidationResult => ({ ok: true, value });

export const invalid = (reason: string): ValidationResult => ({ ok: false, reason });
