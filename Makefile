# Photo3D — Photo → 3D → Link. `make help` lists the targets.
.DEFAULT_GOAL := help
SHELL := /bin/bash

.PHONY: help run test test-go test-web test-e2e build web quality bench fmt vet audit clean manifests

help: ## list the targets
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  \033[1m%-10s\033[0m %s\n", $$1, $$2}'

run: ## install what is missing, start Postgres (unless DATABASE_URL), migrate, build, run api + worker on :8080 (HOST=0.0.0.0: reachable from a phone)
	@ops/run.sh

test: ## the whole suite against a throwaway Postgres: Go (-race), Vitest, Playwright + Chromium
	@ops/test.sh all

test-go: ## Go tests only (throwaway Postgres)
	@ops/test.sh go

test-web: ## web unit tests only
	@ops/test.sh web

test-e2e: ## browser tests only (real api + worker + Postgres)
	@ops/test.sh e2e

build: web ## build bin/api (with the web app embedded) and bin/worker
	@mkdir -p bin && go build -o bin/api ./cmd/api && go build -o bin/worker ./cmd/worker

web: ## build the web app into web/dist
	@source ops/lib.sh && build_web

quality: ## model-quality benchmark of the built-in reconstructor: table per class (QUALITY_N scenes each)
	@ops/quality.sh

bench: ## run the Go benchmarks against a throwaway Postgres (see ops/bench.sh)
	@ops/bench.sh

fmt: ## format Go code
	@gofmt -w $$(git ls-files '*.go')

vet: ## go vet
	@go vet ./...

audit: ## known-vulnerability audit of Go and npm dependencies with the govulncheck pinned in ops/deploy/tools.env (needs internet; not part of make test)
	@source ops/deploy/tools.env && go run $$GOVULNCHECK ./...
	@cd web && npm audit --omit=dev

clean: ## remove build outputs (keeps .data/)
	@rm -rf bin web/dist/assets web/dist/index.html artifacts

manifests: ## render the Kubernetes manifests (base, keda, keda-gpu) into artifacts/manifests with the pinned kustomize
	@mkdir -p artifacts/manifests && source ops/deploy/tools.env && for d in kubernetes keda keda-gpu; do \
	  go run $$KUSTOMIZE build ops/deploy/$$d > artifacts/manifests/$$d.yaml || exit 1; echo "artifacts/manifests/$$d.yaml"; done
