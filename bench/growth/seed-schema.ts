/**
 * The growth seeder's own schema (`growth_seed`, beside the service's tables, never read by the
 * service): what it has done (so that an interrupted seeding resumes), the agencies and their sizes,
 * the definitions of the indexes it dropped for the bulk load, and the deterministic "random" values
 * every step derives from a guarantee's id, so that steps run apart agree (a guarantee's co-tenants,
 * history and signatures are all computed from its id and status, never looked up).
 */

export const SEED_SCHEMA = `
CREATE SCHEMA IF NOT EXISTS growth_seed;
CREATE TABLE IF NOT EXISTS growth_seed.facts (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS growth_seed.steps (name text PRIMARY KEY, seconds numeric NOT NULL, done_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS growth_seed.index_definitions (name text PRIMARY KEY, table_name text NOT NULL, definition text NOT NULL);
CREATE TABLE IF NOT EXISTS growth_seed.agencies (rank int PRIMARY KEY, company_id text NOT NULL UNIQUE, guarantees int NOT NULL);

-- A uniform value in [0, 1) for (key, salt): PostgreSQL's own integer hash.
CREATE OR REPLACE FUNCTION growth_seed.u(key bigint, salt int) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT (hashint8(key * 64 + salt)::float8 + 2147483648) / 4294967296 $$;

-- Co-tenants of a guarantee: a quarter of them have some (20% one, 5% two, 1% three). Written as one
-- expression (no FROM), as every function here, so that PostgreSQL inlines it instead of calling it.
CREATE OR REPLACE FUNCTION growth_seed.co_tenants(id bigint) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN growth_seed.u(id, 2) < 0.20 THEN 1 WHEN growth_seed.u(id, 2) < 0.25 THEN 2 WHEN growth_seed.u(id, 2) < 0.26 THEN 3 ELSE 0 END $$;

-- Partner comments during the review: a quarter of the guarantees have one, 8% two.
CREATE OR REPLACE FUNCTION growth_seed.comments(id bigint) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN growth_seed.u(id, 3) < 0.25 THEN 1 WHEN growth_seed.u(id, 3) < 0.33 THEN 2 ELSE 0 END $$;

-- Where a guarantee of that age (days) stands: the newest are in review, the month's are being
-- decided and signed, older ones are active, then (after the 30-month contract) terminated and archived.
CREATE OR REPLACE FUNCTION growth_seed.status(age float8, u float8) RETURNS "RentalInsuranceStatus" LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT (CASE
  WHEN age < 2 THEN CASE WHEN u < 0.55 THEN 'under_review' WHEN u < 0.70 THEN 'information_requested' WHEN u < 0.85 THEN 'approved'
                         WHEN u < 0.95 THEN 'declined' ELSE 'accepted' END
  WHEN age < 30 THEN CASE WHEN u < 0.03 THEN 'under_review' WHEN u < 0.05 THEN 'information_requested' WHEN u < 0.17 THEN 'approved'
                          WHEN u < 0.29 THEN 'declined' WHEN u < 0.34 THEN 'declined_by_tenant' WHEN u < 0.44 THEN 'accepted' ELSE 'active' END
  WHEN u < 0.12 THEN 'declined' WHEN u < 0.16 THEN 'expired' WHEN u < 0.20 THEN 'declined_by_tenant'
  WHEN age < 900 THEN CASE WHEN u < 0.25 THEN 'terminated' ELSE 'active' END
  ELSE CASE WHEN u < 0.50 THEN 'terminated' ELSE 'archived' END
END)::"RentalInsuranceStatus" $$;

-- History entries a guarantee's life wrote, comments aside (its version is the same number):
-- creation; the review's outcome; expiry, refusal or acceptance; the envelope; one signature per
-- signer (document, tenant, co-tenants); activation; termination; archiving.
CREATE OR REPLACE FUNCTION growth_seed.lifecycle_entries(status "RentalInsuranceStatus", co_tenants int) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE status
  WHEN 'under_review' THEN 1 WHEN 'information_requested' THEN 2 WHEN 'approved' THEN 2 WHEN 'declined' THEN 2
  WHEN 'expired' THEN 3 WHEN 'declined_by_tenant' THEN 3 WHEN 'accepted' THEN 4
  WHEN 'active' THEN 7 + co_tenants WHEN 'terminated' THEN 8 + co_tenants ELSE 9 + co_tenants END $$;

-- A person's name (tenant: key id * 4; co-tenant i: id * 4 + i) and its folded search form.
CREATE OR REPLACE FUNCTION growth_seed.person_name(key bigint, fold boolean) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN fold
  THEN (ARRAY['maria','jose','ana','joao','antonio','francisca','carlos','paulo','adriana','lucas','luiza','marcia','pedro','fernanda','gabriel',
  'juliana','rafael','patricia','marcos','aline','bruno','camila','felipe','leticia','rodrigo','sonia','tiago','vitoria','otavio','beatriz','caio','debora'])[1 + floor(growth_seed.u(key, 10) * 32)::int]
    || ' ' || (ARRAY['silva','santos','oliveira','souza','rodrigues','ferreira','alves','pereira','lima','gomes','costa','ribeiro','martins','carvalho','araujo',
  'melo','barbosa','cardoso','rocha','dias','nascimento','andrade','moreira','nunes','marques','machado','mendes','freitas','conceicao','goncalves','azevedo','sa'])[1 + floor(growth_seed.u(key, 11) * 32)::int]
    || ' ' || (ARRAY['silva','santos','oliveira','souza','rodrigues','ferreira','alves','pereira','lima','gomes','costa','ribeiro','martins','carvalho','araujo',
  'melo','barbosa','cardoso','rocha','dias','nascimento','andrade','moreira','nunes','marques','machado','mendes','freitas','conceicao','goncalves','azevedo','sa'])[1 + floor(growth_seed.u(key, 12) * 32)::int]
  ELSE (ARRAY['Maria','José','Ana','João','Antônio','Francisca','Carlos','Paulo','Adriana','Lucas','Luíza','Márcia','Pedro','Fernanda','Gabriel',
  'Juliana','Rafael','Patrícia','Marcos','Aline','Bruno','Camila','Felipe','Letícia','Rodrigo','Sônia','Tiago','Vitória','Otávio','Beatriz','Caio','Débora'])[1 + floor(growth_seed.u(key, 10) * 32)::int]
    || ' ' || (ARRAY['Silva','Santos','Oliveira','Souza','Rodrigues','Ferreira','Alves','Pereira','Lima','Gomes','Costa','Ribeiro','Martins','Carvalho','Araújo',
  'Melo','Barbosa','Cardoso','Rocha','Dias','Nascimento','Andrade','Moreira','Nunes','Marques','Machado','Mendes','Freitas','Conceição','Gonçalves','Azevedo','Sá'])[1 + floor(growth_seed.u(key, 11) * 32)::int]
    || ' ' || (ARRAY['Silva','Santos','Oliveira','Souza','Rodrigues','Ferreira','Alves','Pereira','Lima','Gomes','Costa','Ribeiro','Martins','Carvalho','Araújo',
  'Melo','Barbosa','Cardoso','Rocha','Dias','Nascimento','Andrade','Moreira','Nunes','Marques','Machado','Mendes','Freitas','Conceição','Gonçalves','Azevedo','Sá'])[1 + floor(growth_seed.u(key, 12) * 32)::int]
  END $$;

-- A co-tenant's CPF: 11 digits starting with 9, apart from every tenant's (their ids padded with zeros).
CREATE OR REPLACE FUNCTION growth_seed.co_tenant_cpf(id bigint, i int) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT '9' || lpad((id * 4 + i)::text, 10, '0') $$;
`;
