# Auxilia sandboxes. `make run` serves the API (and the SPA) on the embedded
# database; `make test` runs every test against the real Postgres and SQLite.

GO ?= go

.PHONY: run build spa token test test-deps lint openapi openapi-check test-go test-frontend test-deployments test-kube sandboxd fuzz fuzz-long bench

run: spa
	$(GO) run ./cmd/auxilia serve

build: spa
	$(GO) build -o bin/auxilia ./cmd/auxilia

# Another API token, made by the built binary on the database `make run`
# uses (the same environment): admin of workspace default unless told, e.g.
# make token ROLE=member TOKEN_NAME=ci. It works at once, server running or not.
WORKSPACE ?= default
ROLE ?= admin
TOKEN_NAME ?= make-token
token: build
	./bin/auxilia tokens create --workspace $(WORKSPACE) --role $(ROLE) --name $(TOKEN_NAME)

# The SPA, built into frontend/dist, which the binary embeds.
spa: frontend/node_modules/.package-lock.json
	cd frontend && npm run build

frontend/node_modules/.package-lock.json: frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund

# The runsc (gVisor) the tests run local instances under, built from source:
# Debian 12's runsc (2022) cannot stat files with the host's coreutils, so the
# server does not offer it. Any runsc on PATH built from another version (or
# not built by go install, as Debian's) is replaced by this one.
RUNSC_MODULE = gvisor.dev/gvisor
RUNSC_VERSION = v0.0.0-20260905035102-160fafc42237

# Everything the tests need, started or installed when missing (the
# certified OpenID provider the sign-in tests run is pinned in its own folder).
test-deps:
	@command -v bwrap >/dev/null && command -v slirp4netns >/dev/null && test -x /usr/sbin/nft && command -v ip >/dev/null && \
		test -x /sbin/mkfs.ext4 && test -x /usr/bin/chromium && dpkg -s python3-venv >/dev/null 2>&1 || { apt-get update -qq && \
		apt-get install -y -qq --no-install-recommends bubblewrap chromium e2fsprogs iproute2 nftables python3-venv slirp4netns >/dev/null; }
	@$(GO) version -m "$$(command -v runsc)" 2>/dev/null | grep -q "$(RUNSC_MODULE)[[:space:]]*$(RUNSC_VERSION)" || { \
		echo "installing runsc $(RUNSC_VERSION) into /usr/local/bin (a few minutes)" >&2; \
		CGO_ENABLED=0 GOBIN=/usr/local/bin $(GO) install gvisor.dev/gvisor/runsc@$(RUNSC_VERSION); }
	@test -f pkg/sso/testdata/idp/node_modules/oidc-provider/package.json || \
		npm ci --prefix pkg/sso/testdata/idp --no-audit --no-fund >/dev/null
	@pg_isready -q -h 127.0.0.1 -p 5432 || \
		pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql) main start
	@for i in $$(seq 30); do pg_isready -q -h 127.0.0.1 -p 5432 && exit 0; sleep 1; done; \
		echo "Postgres is not answering on 127.0.0.1:5432" >&2; exit 1

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: the files above need formatting" >&2; exit 1; }
	$(GO) vet ./...
	cd pkg/client && $(GO) vet ./...

test: test-deps lint openapi-check spa test-go test-frontend test-deployments test-kube fuzz

# pkg/client is a module of its own, importable on the previous Go release.
# The Kubernetes provider's commands, files and terminal are tested against
# sandboxd, agent-sandbox's daemon, built from its module.
test-go: sandboxd
	SANDBOXD_BIN=$(CURDIR)/bin/sandboxd $(GO) test -count=1 -race -timeout 30m ./...
	cd pkg/client && $(GO) test -count=1 -race -timeout 30m ./...

# The SPA's types against openapi.yaml, its component tests, and its browser
# tests (Debian's Chromium driving the real binary).
test-frontend: spa
	cd frontend && npm run gen:check && npm run lint && npm test && npm run e2e

# The deployment artifacts' offline checks: a module of their own (Helm is big).
test-deployments:
	cd deployments && $(GO) vet ./... && $(GO) test -count=1 ./...

# sandboxd at the version the Kubernetes test cluster's module pins.
sandboxd:
	cd kube && $(GO) build -o ../bin/sandboxd sigs.k8s.io/agent-sandbox/packages/sandboxd/cmd/sandboxd

# The Kubernetes test cluster (a real kube-apiserver, etcd and agent-sandbox's
# controllers in one process): a module of its own (Kubernetes is big).
test-kube:
	cd kube && $(GO) vet ./... && $(GO) test -count=1 ./...

# openapi.yaml is generated from the handlers' annotations, and pkg/client from
# it (pkg/client's tests fail when it is stale); CI fails on drift,
# and on any error Redocly or Spectral (pinned in frontend/package.json) finds.
openapi:
	$(GO) run ./cmd/openapigen
	cd pkg/client && $(GO) generate ./...

openapi-check: frontend/node_modules/.package-lock.json
	$(GO) run ./cmd/openapigen -check
	cd frontend && npm run lint:spec

# Each fuzz target for FUZZTIME (20 s in CI; `make fuzz-long` gives each three minutes).
# Fuzzing runs on Go 1.27, fetched from the module proxy like any module: Go
# 1.26's fuzz coordinator can fail a target with "context deadline exceeded"
# as its time runs out (go.dev/issue/75804), with no failing input at all.
FUZZTIME ?= 20s
FUZZ_GO ?= GOTOOLCHAIN=go1.27.3 $(GO)
FUZZ_TARGETS = \
	./pkg/sandbox:FuzzValidateSpec \
	./pkg/provider:FuzzVolumeMount \
	./pkg/provider:FuzzScrub \
	./pkg/validation:FuzzImageRef \
	./pkg/validation:FuzzPipRequirement \
	./pkg/provider/opensandbox:FuzzEventReader \
	./pkg/provider/daytona:FuzzReconnectState \
	./pkg/mergepatch:FuzzApply \
	./pkg/shell:FuzzQuote \
	./pkg/jailfs:FuzzInside

fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$name ($$pkg) for $(FUZZTIME)"; \
		$(FUZZ_GO) test $$pkg -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) >/tmp/fuzz-$$name.log 2>&1 || { cat /tmp/fuzz-$$name.log; exit 1; }; \
		tail -n 3 /tmp/fuzz-$$name.log | grep -E 'execs|ok' | tail -n 2; \
	done

fuzz-long:
	$(MAKE) fuzz FUZZTIME=3m

# Measures the real binary on Postgres and rewrites docs/benchmarks.md.
bench: test-deps
	$(GO) run ./bench
