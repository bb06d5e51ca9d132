# Routine tasks. Every target installs what it needs first (only when package.json or the lockfile changed).
SHELL := /bin/bash
.DEFAULT_GOAL := help
NPM_STAMP := node_modules/.install-stamp
export REDOCLY_TELEMETRY := off
export REDOCLY_SUPPRESS_UPDATE_NOTICE := true
export CHECKPOINT_DISABLE := 1

.PHONY: help install generate build start test check lint check-generated typecheck migrate admin bench clean
.PHONY: contract-checks spectral breaking-changes breaking-changes-selftest contract-journey

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

# `npm install` with the committed lockfile, not `npm ci`: npm 11 writes no lockfile entries for
# unrs-resolver's bindings of other platforms, and `npm ci` then refuses the lockfile as out of sync.
$(NPM_STAMP): package.json package-lock.json
	npm install --no-audit --no-fund
	@touch $(NPM_STAMP)

install: $(NPM_STAMP) ## Install dependencies and generate the Prisma client
	@# Prisma 6.19 needs some DATABASE_URL to read the schema offline; generation never connects.
	DATABASE_URL=$${DATABASE_URL:-postgresql://generate@localhost/generate} npx prisma generate --no-hints >/dev/null

generate: install ## Regenerate TypeScript types from openapi/*.yaml
	node scripts/generate-types.mjs

build: install ## Compile to dist/
	npx tsc -p tsconfig.build.json

start: build ## Install, build and start the sandbox service with an embedded database and a demo credential
	ENVIRONMENT=$${ENVIRONMENT:-sandbox} DEMO_CREDENTIAL=$${DEMO_CREDENTIAL:-true} npm start --silent

test: install ## Install and run the whole test suite against a real PostgreSQL (embedded unless TEST_DATABASE_URL)
	@mkdir -p .data
	npx jest --json --outputFile=.data/jest-results.json; status=$$?; node scripts/test-summary.mjs .data/jest-results.json; exit $$status

check: lint check-generated typecheck ## Contract lint, generated-types drift check and type check

lint: install ## Lint the OpenAPI documents (Redocly recommended rules)
	npx redocly lint openapi/partner.yaml openapi/auth.yaml openapi/operations.yaml

check-generated: install ## Fail when src/generated/ differs from a fresh generation
	node scripts/generate-types.mjs --check

typecheck: install ## Strict TypeScript check of src, scripts, test and bench
	npx tsc --noEmit -p tsconfig.json

# Contract conformance (issue 7). CI runs `make -k contract-checks` before `make test`.
contract-checks: spectral breaking-changes contract-journey ## Spectral + OWASP lint, breaking-change check, Prism journey

spectral: install ## Lint partner.yaml and auth.yaml with Spectral: OpenAPI and OWASP API security rules (.spectral.yaml)
	npx spectral lint openapi/partner.yaml openapi/auth.yaml --fail-severity=warn

breaking-changes: install ## Optic: fail on a breaking change against openapi/published/ (plus a 3-case self-test)
	node scripts/contract/breaking-changes.mjs
	node scripts/contract/breaking-changes.mjs --self-test=quick

breaking-changes-selftest: install ## All 13 cases of the breaking-change self-test (about 1-2 minutes)
	node scripts/contract/breaking-changes.mjs --self-test

contract-journey: install ## A partner journey through Prism (proxy, --errors) in front of the real service, and its self-test
	node scripts/contract/prism-journey.mjs --self-test

migrate: install ## Apply migrations to DATABASE_URL
	npx prisma migrate deploy

admin: build ## Admin tool: make admin ARGS="credentials create --company acme --name ERP --director Ana --scopes ri:rental-insurances:read"
	node dist/scripts/admin.js $(ARGS)

bench: build ## Run the benchmark suite (seeds 1,000,000 guarantees; takes minutes) and write bench/results.md
	node dist/bench/run.js

clean: ## Remove build output and local databases
	rm -rf dist .data
