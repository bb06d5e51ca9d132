# Routine tasks. Every target installs what it needs first (only when package.json or the lockfile changed).
SHELL := /bin/bash
.DEFAULT_GOAL := help
NPM_STAMP := node_modules/.install-stamp
PRISMA_CLIENT := src/generated/prisma/client.ts
export REDOCLY_TELEMETRY := off
export REDOCLY_SUPPRESS_UPDATE_NOTICE := true
export CHECKPOINT_DISABLE := 1
# The runtime comes with the dependencies (docs/development.md, "Runtime"): on Linux x64/arm64 `npm install` links
# Node 24 from the optional dependency node-linux-<cpu> as node_modules/.bin/node. Every recipe finds
# it first on PATH, as npm scripts and npx already do; check-node.mjs refuses an older `node`.
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)

.PHONY: help install generate build start test smoke-node22 topology-test rolling-deploy-test production-tests check lint lint-code lint-openapi format check-generated check-docs check-layers check-writes typecheck migrate admin bench bench-explain bench-compare clean
.PHONY: bench-growth-seed bench-growth bench-growth-plans
.PHONY: contract-checks spectral breaking-changes breaking-changes-selftest contract-journey
.PHONY: integrator-kit reference-page-check client-build client-test example conformance-build conformance-selftest conformance partner-packages generated-client-journey

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

# `npm install` with the committed lockfile, not `npm ci`: npm 11 writes no lockfile entries for
# unrs-resolver's bindings of other platforms, and `npm ci` then refuses the lockfile as out of sync.
$(NPM_STAMP): package.json package-lock.json $(wildcard clients/*/package.json examples/*/package.json conformance/package.json)
	npm install --no-audit --no-fund
	@touch $(NPM_STAMP)

# The Prisma client is generated again only when the schema, its config or the dependencies change
# (every make target that installs would otherwise spend seconds on it: CI runs seven).
$(PRISMA_CLIENT): prisma/schema.prisma prisma.config.ts $(NPM_STAMP)
	@# Prisma needs some DATABASE_URL to read the schema offline; generation never connects.
	DATABASE_URL=$${DATABASE_URL:-postgresql://generate@localhost/generate} npx prisma generate --no-hints >/dev/null
	@touch $(PRISMA_CLIENT)

install: $(PRISMA_CLIENT) ## Install dependencies (Node 24 among them) and generate the Prisma client
	@node scripts/check-node.mjs

generate: install ## Regenerate TypeScript types from openapi/*.yaml, and the generated docs (docs/configuration.md, the layer table)
	node scripts/generate-types.mjs
	node --import tsx scripts/docs/generate-docs.ts

build: install ## Compile to dist/ (and bundle the console's pages into dist/console/)
	npx tsc -p tsconfig.build.json
	node scripts/build-console.mjs

start: build ## Install, build and start the sandbox service with an embedded database and a demo credential
	ENVIRONMENT=$${ENVIRONMENT:-sandbox} DEMO_CREDENTIAL=$${DEMO_CREDENTIAL:-true} WEBHOOK_ALLOW_LOOPBACK=$${WEBHOOK_ALLOW_LOOPBACK:-true} npm start --silent

test: install ## Install and run the whole test suite against a real PostgreSQL (embedded unless TEST_DATABASE_URL)
	@mkdir -p .data
	@rm -rf .data/operation-tally
	npx jest --json --outputFile=.data/jest-results.json; status=$$?; node scripts/test-summary.mjs .data/jest-results.json --operation-tally=.data/operation-tally || status=1; exit $$status

smoke-node22: build ## The built service started by Node 22 LTS (fetched by npx): one token, one list answered 200; CI runs it after make test
	node scripts/smoke-node22.mjs

# Issue 24: two hosts (clusters of two workers) behind HAProxy, PgBouncer in transaction mode, a primary
# with a streaming replica and Redis, under faults (kill -9 of a host, pooler and primary restarts).
topology-test: build ## The production topology test: hosts behind HAProxy, PgBouncer, replica, Redis, under faults (installs the Debian packages when missing)
	scripts/topology/install-packages.sh
	@mkdir -p .data; rm -f .data/jest-results-topology.json
	npx jest test/topology --runInBand --testPathIgnorePatterns '/node_modules/' --json --outputFile=.data/jest-results-topology.json; status=$$?; node scripts/test-summary.mjs .data/jest-results-topology.json; exit $$status

# Issue 24 item 5: the previous release (the commit before the newest migration with this lockfile,
# or ROLLING_BASE) built in a temporary directory, serving while this one starts and migrates.
rolling-deploy-test: build ## A rolling deploy: the previous release keeps answering while this one applies its migrations (builds it: seconds on this node_modules)
	@mkdir -p .data; rm -f .data/jest-results-rolling.json
	npx jest test/rolling --runInBand --testPathIgnorePatterns '/node_modules/' --json --outputFile=.data/jest-results-rolling.json; status=$$?; node scripts/test-summary.mjs .data/jest-results-rolling.json; exit $$status

# CI runs both at once, in one Jest run of two workers (one global setup): each starts its own
# PostgreSQL servers, hosts and balancer on free ports and in temporary folders, and most of their
# time is spent waiting on processes they start, stop and kill.
production-tests: build ## The topology and rolling-deploy tests side by side (what .ci/run runs)
	scripts/topology/install-packages.sh
	@mkdir -p .data; rm -f .data/jest-results-production.json
	npx jest test/topology test/rolling --maxWorkers=2 --testPathIgnorePatterns '/node_modules/' --json --outputFile=.data/jest-results-production.json; status=$$?; node scripts/test-summary.mjs .data/jest-results-production.json; exit $$status

check: lint check-generated check-docs check-layers check-writes typecheck ## Lint, generated code and docs drift, paths in the docs, layers, the files a write reads, type check

PRETTIER_FILES := "src/**/*.ts" "web/**/*.ts" "test/**/*.ts" "scripts/**/*.{ts,mjs,cjs,js}" "bench/**/*.ts" "*.{ts,mjs,cjs,js}" ".dependency-cruiser.cjs"

lint: lint-openapi lint-code ## Lint the OpenAPI documents and the code (ESLint, Prettier)

lint-openapi: install ## Lint the OpenAPI documents (Redocly recommended rules)
	npx redocly lint openapi/partner.yaml openapi/auth.yaml openapi/back-office.yaml openapi/console.yaml
	@# Health probes answer no 4xx at all: the one rule that cannot hold for them.
	npx redocly lint openapi/health.yaml --skip-rule operation-4xx-response

lint-code: install ## ESLint (typescript-eslint recommended) and Prettier's check over src, test, scripts and bench
	npx eslint --max-warnings=0 .
	npx prettier --check $(PRETTIER_FILES)

format: install ## Rewrite the code in Prettier's format
	npx prettier --write $(PRETTIER_FILES)

check-generated: install ## Fail when src/generated/ differs from a fresh generation
	node scripts/generate-types.mjs --check

check-docs: install ## Fail when a generated doc is out of date, or a document names a path or link that does not exist
	node --import tsx scripts/docs/generate-docs.ts --check
	node scripts/docs/check-doc-paths.mjs
	node scripts/docs/check-doc-paths.mjs --self-test

check-layers: install ## Fail on an import of src/ against its layers (dependency-cruiser), then the check's self-test
	node scripts/architecture/check-layers.mjs
	node scripts/architecture/check-layers.mjs --self-test

check-writes: install ## Fail when following POST .../comments takes more than 10 files, PATCH .../{id} more than 15, or either goes back to a file (docs/architecture.md)
	node scripts/architecture/follow-write.mjs --check 10 createRentalInsuranceComment --check 15 patchRentalInsurance

typecheck: install ## Strict TypeScript check of src, scripts, test and bench, and of the console's pages (web/console)
	npx tsc --noEmit -p tsconfig.json
	npx tsc -p web/console/tsconfig.json

# Contract conformance (issue 7). CI runs `make -k contract-checks` before `make test`.
contract-checks: spectral breaking-changes contract-journey ## Spectral + OWASP lint, breaking-change check, Prism journey

spectral: install ## Lint partner.yaml and auth.yaml with Spectral: OpenAPI and OWASP API security rules (.spectral.yaml)
	npx spectral lint openapi/partner.yaml openapi/auth.yaml --fail-severity=warn

breaking-changes: install ## Optic: fail on a breaking change against openapi/published/, and the changelog rule (plus a quick self-test)
	node scripts/contract/breaking-changes.mjs
	node scripts/contract/breaking-changes.mjs --self-test=quick

breaking-changes-selftest: install ## All 18 cases of the breaking-change self-test (about 1-2 minutes)
	node scripts/contract/breaking-changes.mjs --self-test

contract-journey: install ## A partner journey through Prism (proxy, --errors) in front of the real service, and its self-test
	node scripts/contract/prism-journey.mjs --self-test

# Integrator kit (issue 15). CI runs `make -k integrator-kit` after `make contract-checks`.
integrator-kit: reference-page-check client-test example conformance-selftest generated-client-journey ## Reference page in Chromium, client tests, example, conformance kit self-test, a second generator's client

reference-page-check: install ## GET /docs in headless Chromium (Debian's, apt-get installed if missing): every operation, a request sent from its console, no outside request; screenshots in .data/reference-page/
	node scripts/reference-page-check.mjs

client-build: install ## Compile the TypeScript client (clients/typescript/) to its dist/
	npx tsc -p clients/typescript/tsconfig.json

client-test: client-build ## The TypeScript client's tests against a real sandbox service (retries, replays, tokens, If-Match)
	npx tsc -p clients/typescript/tsconfig.test.json
	node --import tsx --test --test-reporter=spec clients/typescript/test/*.test.ts

example: client-build ## Build examples/typescript and run it against a fresh sandbox service, creation to active
	npx tsc -p examples/typescript/tsconfig.json
	node scripts/run-example.mjs

conformance-build: install ## Compile the partner conformance kit (conformance/) to its dist/
	npx tsc -p conformance/tsconfig.json

conformance-selftest: conformance-build ## The kit passes against a fresh sandbox and fails, naming the step, when one answer is out of contract
	npx tsc -p conformance/tsconfig.test.json
	node --import tsx --test --test-reporter=spec conformance/test/*.test.ts

generated-client-journey: install ## A client generated by @hey-api/openapi-ts from partner.yaml: type-check a short journey against it, run it against a fresh sandbox
	node scripts/generated-client-journey.mjs --self-test

conformance: conformance-build ## Run the kit: make conformance ARGS="--base-url URL --auth-url URL --client-id ID" (secret in RG_CLIENT_SECRET)
	node conformance/dist/cli.js $(ARGS)

# What partners get instead of this repository (docs/partners.md): npm install the tarballs.
partner-packages: install ## The client and the conformance kit as the npm tarballs partners get, in .data/partner-packages/
	@rm -rf .data/partner-packages && mkdir -p .data/partner-packages
	npm pack ./clients/typescript ./conformance --pack-destination .data/partner-packages

migrate: install ## Apply migrations to DATABASE_URL
	npx prisma migrate deploy

admin: build ## Admin tool: make admin ARGS="credentials create --company acme --name ERP --director Ana --scopes ri:rental-insurances:read"
	node dist/scripts/admin.js $(ARGS)

bench: build ## Run the benchmark suite (seeds 1,000,000 guarantees; takes minutes) and write bench/results.md
	scripts/topology/install-packages.sh
	node dist/bench/run.js

bench-explain: build ## EXPLAIN (ANALYZE, BUFFERS) of the financial reads on the bench's seeded database (bench/results.md, issue 38)
	node dist/bench/explain-reads.js

# Issue 38 item 5 (docs/growth.md): a national provider's dataset, seeded once and kept outside the checkout.
bench-growth-seed: build ## Seed the growth dataset (10,000,000 guarantees over 5,000 agencies; one to two hours, 30 GB), resume it, or find it seeded
	node dist/bench/growth/seed-cli.js

bench-growth: build ## Growth bench: get, lists, history, statements, balance, create on the largest and median agencies against the 1M dataset; writes bench/growth-results.md
	node dist/bench/growth/run-growth.js

bench-growth-plans: build ## EXPLAIN (ANALYZE, BUFFERS) of every statement of the growth bench's operations on both datasets; writes .data/growth-plans.md
	node dist/bench/growth/plans.js

bench-compare: build ## Interleaved A/B of this checkout against another built one: make bench-compare OLD=../old-main
	OLD=$(OLD) node dist/bench/compare.js

clean: ## Remove build output and local databases
	rm -rf dist .data
