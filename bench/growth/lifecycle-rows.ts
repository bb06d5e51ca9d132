/**
 * The history and the signature records of one slice of guarantees (ids $1 to $2), as their lives
 * wrote them (src/back-office/review-actions.ts, src/guarantees/): creation by the agency's ERP, the
 * reviewer's decision, the partner's acceptance or refusal, the signing envelope and each signature
 * (the system), activation, termination and archiving, and the partner's comments during the review.
 * Entries are inserted in time order across the slice, so a guarantee's entries lie apart in the
 * table as they would after months of other agencies' writes. Young guarantees live their steps
 * faster (`scale`), so that nothing happens after the anchor ($3, the seeding's "now").
 */

const REVIEWERS = `(ARRAY['Camila Rocha','Rafael Lima','Juliana Alves','Marcelo Teixeira','Patrícia Nunes','Eduardo Pires'])`;
const COMMENTS = `(ARRAY['Documentos do inquilino enviados por e-mail.','Comprovante de renda atualizado anexado ao cadastro.',
  'O proprietário pede prioridade nesta análise.','Inquilino informou novo telefone de contato.'])`;

export const INSERT_HISTORY = `
INSERT INTO history_entries (rental_insurance_id, kind, creator_name, creator_service_account, comment, previous_status, status, created_at)
SELECT r.id, e.kind, e.creator, e.service_account, e.comment, e.previous_status::"RentalInsuranceStatus", e.status::"RentalInsuranceStatus", e.at
FROM rental_insurances r
CROSS JOIN LATERAL (
  SELECT least(1, extract(epoch FROM $3::timestamptz - r.created_at) / 86400 / 40) AS scale,
         ${REVIEWERS}[1 + floor(growth_seed.u(r.id, 30) * 6)::int] AS reviewer,
         r.status IN ('accepted', 'active', 'terminated', 'archived') AS accepted,
         r.status IN ('active', 'terminated', 'archived') AS signed
) p
CROSS JOIN LATERAL (
  SELECT 'created', r.creator_name, true, 'Rental insurance created; review started.', NULL, 'under_review', r.created_at
  UNION ALL
  SELECT 'comment', r.creator_name, true, ${COMMENTS}[1 + floor(growth_seed.u(r.id * 4 + j, 31) * 4)::int], 'under_review', 'under_review',
         r.created_at + (0.3 * j) * p.scale * interval '1 day'
  FROM generate_series(1, growth_seed.comments(r.id)) AS j
  UNION ALL
  SELECT 'status_changed', p.reviewer, false, 'Falta o comprovante de renda do inquilino.', 'under_review', 'information_requested',
         r.created_at + p.scale * interval '1 day'
  WHERE r.status = 'information_requested'
  UNION ALL
  SELECT 'status_changed', p.reviewer, false, 'Proposal declined.', 'under_review', 'declined', r.created_at + p.scale * interval '2 days'
  WHERE r.status = 'declined'
  UNION ALL
  SELECT 'status_changed', p.reviewer, false, 'Proposal approved.', 'under_review', 'approved', r.approved_at
  WHERE r.approved_at IS NOT NULL
  UNION ALL
  SELECT 'status_changed', 'system', true, 'Proposal validity ended.', 'approved', 'expired', r.created_at + p.scale * interval '32 days'
  WHERE r.status = 'expired'
  UNION ALL
  SELECT 'status_changed', r.creator_name, true, NULL, 'approved', 'declined_by_tenant', r.created_at + p.scale * interval '4 days'
  WHERE r.status = 'declined_by_tenant'
  UNION ALL
  SELECT 'status_changed', r.creator_name, true, NULL, 'approved', 'accepted', r.created_at + p.scale * interval '4 days'
  WHERE p.accepted
  UNION ALL
  SELECT 'signature_changed', 'system', true, 'Signing envelope ready; signers invited.', 'accepted', 'accepted',
         r.created_at + p.scale * interval '5 days'
  WHERE p.accepted
  UNION ALL
  SELECT 'signature_changed', 'system', true,
         CASE WHEN i = 0 THEN 'The contract document signed.' WHEN i = 1 THEN 'Signer ' || r.tenant_name || ' signed.'
              ELSE 'Signer ' || growth_seed.person_name(r.id * 4 + i - 1, false) || ' signed.' END,
         'accepted', 'accepted', r.created_at + p.scale * (interval '6 days' + i * interval '1 hour')
  FROM generate_series(0, 1 + growth_seed.co_tenants(r.id)) AS i
  WHERE p.signed
  UNION ALL
  SELECT 'status_changed', 'system', true, 'Every signature collected; the guarantee is active.', 'accepted', 'active',
         r.created_at + p.scale * interval '7 days'
  WHERE p.signed
  UNION ALL
  SELECT 'status_changed', 'system', true, 'Termination date reached.', 'active', 'terminated', r.terminated_at
  WHERE r.terminated_at IS NOT NULL
  UNION ALL
  SELECT 'status_changed', 'system', true, 'Retention period ended.', 'terminated', 'archived', r.updated_at
  WHERE r.status = 'archived'
) AS e(kind, creator, service_account, comment, previous_status, status, at)
WHERE r.id BETWEEN $1 AND $2
ORDER BY e.at, r.id`;

/**
 * Signature records of the slice's accepted guarantees (awaiting signature: the envelope is ready)
 * and of those that were signed (active, then terminated or archived): the contract document, the
 * tenant and each co-tenant.
 */
export const INSERT_SIGNATURES = `
INSERT INTO signatures (rental_insurance_id, role, cpf_cnpj, name, url, status, updated_at)
SELECT r.id, (CASE WHEN i = 0 THEN 'document' WHEN i = 1 THEN 'tenant' ELSE 'co_tenant' END)::"SignatureRole",
  CASE WHEN i = 1 THEN r.tenant_cpf_cnpj WHEN i > 1 THEN growth_seed.co_tenant_cpf(r.id, i - 1) END,
  CASE WHEN i = 1 THEN r.tenant_name WHEN i > 1 THEN growth_seed.person_name(r.id * 4 + i - 1, false) END,
  'https://sign.rentalguarantee.example/envelopes/' || r.id || '-v4/signers/' || (i + 1),
  (CASE WHEN r.status = 'accepted' THEN 'awaiting_signature' ELSE 'signed' END)::"SignatureStatus",
  r.created_at + least(1, extract(epoch FROM $3::timestamptz - r.created_at) / 86400 / 40) * (interval '6 days' + i * interval '1 hour')
FROM rental_insurances r, generate_series(0, 1 + growth_seed.co_tenants(r.id)) AS i
WHERE r.id BETWEEN $1 AND $2 AND r.status IN ('accepted', 'active', 'terminated', 'archived')
ORDER BY r.id, i`;
