/**
 * One time slice of the growth dataset's guarantees, with their co-tenants: the k-th guarantee of an
 * agency of n guarantees was created at fraction (k + jitter) / n of the period, so every agency's
 * creations spread over the whole period and interleave with the others' as a national provider's
 * do (an agency's rows lie scattered over the table, not side by side as in the single-agency
 * dataset). Ids follow creation time; they are given here (the slice's offset plus the row's place)
 * so that the later steps, which derive everything from a guarantee's id, agree.
 *
 * Parameters: $1 the slice (0-based), $2 the number of slices, $3 the anchor (the seeding's "now",
 * timestamptz text), $4 the period in days.
 */

const CITIES = `(ARRAY['São Paulo','Rio de Janeiro','Belo Horizonte','Curitiba','Porto Alegre','Salvador','Recife','Fortaleza','Brasília','Goiânia','Campinas','Florianópolis'])`;
const STATES = `(ARRAY['SP','RJ','MG','PR','RS','BA','PE','CE','DF','GO','SP','SC'])`;
const ZIP_PREFIXES = `(ARRAY['01','20','30','80','90','40','50','60','70','74','13','88'])`;
const STREETS = `(ARRAY['Rua das Flores','Avenida Paulista','Rua XV de Novembro','Avenida Brasil','Rua da Consolação','Rua Augusta',
  'Avenida Atlântica','Rua Sete de Setembro','Avenida Getúlio Vargas','Rua Barão do Rio Branco','Rua São Bento','Avenida Independência',
  'Rua Marechal Deodoro','Avenida Santos Dumont','Rua Tiradentes','Rua Dom Pedro II'])`;
const NEIGHBORHOODS = `(ARRAY['Centro','Jardim América','Vila Mariana','Boa Vista','Santa Cecília','Bela Vista','Copacabana','Savassi','Batel',
  'Moinhos de Vento','Barra','Boa Viagem','Aldeota','Asa Sul','Setor Bueno','Cambuí'])`;
const PROFESSIONS = `(ARRAY['Engenheira','Professor','Analista de sistemas','Enfermeira','Advogado','Comerciante','Médica','Designer'])`;

/** Rows created in the slices before $1: its first id is this plus one. */
const SLICE_OFFSET = `(SELECT COALESCE(sum(ceil(a.guarantees * $1::int / $2::numeric)), 0)::bigint FROM growth_seed.agencies a)`;

export const INSERT_GUARANTEE_SLICE = `
INSERT INTO rental_insurances (id, company_id, external_id, status, version, creator_name, creator_service_account,
  tenant_cpf_cnpj, tenant_name, tenant_name_search, tenant_email, tenant_birth_date, tenant_phone, tenant_profession,
  property_external_id, property_type, address_zip_code, address_street, address_number, address_complement, address_neighborhood,
  address_city, address_state, rental_amount, condo_fee, property_tax, other_fees, setup_fee, installment_amount, coverage_limit,
  rent_coverage_limit, remaining_coverage_amount, rent_remaining_coverage_amount, start_billing_date, termination_date,
  approved_at, terminated_at, created_at, updated_at)
SELECT s.id, s.company_id, 'CTR-' || s.rank || '-' || s.k, l.status, growth_seed.lifecycle_entries(l.status, growth_seed.co_tenants(s.id)),
  'ERP Imobiliária ' || lpad(s.rank::text, 4, '0'), true,
  lpad(s.id::text, 11, '0'), growth_seed.person_name(s.id * 4, false), growth_seed.person_name(s.id * 4, true),
  'inquilino' || s.id || '@example.com', date '1955-01-01' + floor(growth_seed.u(s.id, 13) * 16000)::int,
  '+55' || (11 + s.rank % 80) || '9' || lpad(floor(growth_seed.u(s.id, 14) * 1e8)::text, 8, '0'),
  CASE WHEN growth_seed.u(s.id, 15) < 0.7 THEN ${PROFESSIONS}[1 + floor(growth_seed.u(s.id, 16) * 8)::int] END,
  'IMV-' || s.rank || '-' || s.k, l.property_type,
  ${ZIP_PREFIXES}[1 + s.rank % 12] || lpad(floor(growth_seed.u(s.id, 17) * 1e6)::text, 6, '0'),
  ${STREETS}[1 + floor(growth_seed.u(s.id, 18) * 16)::int], (1 + floor(growth_seed.u(s.id, 19) * 3000))::text,
  CASE WHEN l.property_type = 'apartment' THEN 'Apto ' || (11 + floor(growth_seed.u(s.id, 20) * 180)::int) END,
  ${NEIGHBORHOODS}[1 + floor(growth_seed.u(s.id, 21) * 16)::int], ${CITIES}[1 + s.rank % 12], ${STATES}[1 + s.rank % 12],
  l.rent, CASE WHEN l.property_type = 'apartment' THEN round((200 + growth_seed.u(s.id, 22) * 1300)::numeric) END,
  round(l.rent * 0.08, 2), NULL, NULL,
  CASE WHEN l.approved THEN round(l.rent * 0.12, 2) END, CASE WHEN l.approved THEN l.rent * 30 END, CASE WHEN l.approved THEN l.rent * 30 END,
  CASE WHEN l.approved THEN l.rent * 30 END, CASE WHEN l.approved THEN l.rent * 30 END,
  CASE WHEN l.accepted THEN (l.created + l.scale * interval '7 days')::date END,
  CASE WHEN l.signed THEN (l.created + l.scale * interval '7 days' + interval '30 months')::date END,
  CASE WHEN l.approved THEN l.created + l.scale * interval '2 days' END,
  CASE WHEN l.status IN ('terminated', 'archived') THEN l.terminated END,
  l.created,
  CASE l.status
    WHEN 'under_review' THEN l.created
    WHEN 'information_requested' THEN l.created + l.scale * interval '1 day'
    WHEN 'approved' THEN l.created + l.scale * interval '2 days'
    WHEN 'declined' THEN l.created + l.scale * interval '2 days'
    WHEN 'declined_by_tenant' THEN l.created + l.scale * interval '4 days'
    WHEN 'accepted' THEN l.created + l.scale * interval '5 days'
    WHEN 'expired' THEN l.created + l.scale * interval '32 days'
    WHEN 'active' THEN l.created + l.scale * interval '7 days'
    WHEN 'terminated' THEN l.terminated
    ELSE l.terminated + least(interval '180 days', ($3::timestamptz - l.terminated) / 2)
  END
FROM (
  SELECT g.rank, g.company_id, g.k, g.t, ${SLICE_OFFSET} + row_number() OVER (ORDER BY g.t, g.rank) AS id
  FROM (
    SELECT a.rank, a.company_id, k, (k + growth_seed.u(a.rank::bigint * 10000000 + k, 0)) / a.guarantees AS t
    FROM growth_seed.agencies a,
         generate_series(ceil(a.guarantees * $1::int / $2::numeric)::int, ceil(a.guarantees * ($1::int + 1) / $2::numeric)::int - 1) AS k
  ) g
) s
CROSS JOIN LATERAL (SELECT (1 - s.t) * $4::float8 AS age) a
CROSS JOIN LATERAL (
  SELECT st AS status, least(1, a.age / 40) AS scale,
    $3::timestamptz - a.age * interval '1 day' AS created,
    $3::timestamptz - a.age * interval '1 day' + least(912, 0.9 * a.age) * interval '1 day' AS terminated,
    round((800 + growth_seed.u(s.id, 4) * 6000)::numeric) AS rent,
    (CASE WHEN growth_seed.u(s.id, 5) < 0.7 THEN 'apartment' WHEN growth_seed.u(s.id, 5) < 0.95 THEN 'house' ELSE 'commercial' END)::"PropertyType" AS property_type,
    st NOT IN ('under_review', 'information_requested', 'declined') AS approved,
    st IN ('accepted', 'active', 'terminated', 'archived') AS accepted,
    st IN ('active', 'terminated', 'archived') AS signed
  FROM growth_seed.status(a.age, growth_seed.u(s.id, 1)) AS st
) l
ORDER BY s.id`;

/** The co-tenants of the slice's guarantees (ids $1 to $2), created with them. */
export const INSERT_CO_TENANTS = `
INSERT INTO co_tenants (rental_insurance_id, cpf_cnpj, name, email, birth_date, phone_number, created_at)
SELECT r.id, growth_seed.co_tenant_cpf(r.id, i), growth_seed.person_name(r.id * 4 + i, false),
  CASE WHEN growth_seed.u(r.id * 4 + i, 23) < 0.6 THEN 'cotenant' || (r.id * 4 + i) || '@example.com' END,
  date '1955-01-01' + floor(growth_seed.u(r.id * 4 + i, 13) * 16000)::int,
  CASE WHEN growth_seed.u(r.id * 4 + i, 24) < 0.6 THEN '+5521' || '9' || lpad(floor(growth_seed.u(r.id * 4 + i, 14) * 1e8)::text, 8, '0') END,
  r.created_at
FROM rental_insurances r, generate_series(1, growth_seed.co_tenants(r.id)) AS i
WHERE r.id BETWEEN $1 AND $2
ORDER BY r.id, i`;

/** First and last id of slice $1 of $2. */
export const SLICE_IDS = `
SELECT ${SLICE_OFFSET} + 1 AS first,
       (SELECT COALESCE(sum(ceil(a.guarantees * ($1::int + 1) / $2::numeric)), 0)::bigint FROM growth_seed.agencies a) AS last`;
