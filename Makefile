# Auxilia sandboxes. `make run` serves the API (and the SPA) on the embedded
# database; `make test` runs every test against the real Postgres and SQLite.

GO ?= go

.PHONY: run build test test-deps lint openapi openapi-check

run:
	$(GO) run ./cmd/auxilia serve

build:
	$(GO) build -o bin/auxilia ./cmd/auxilia

# Everything the tests need, started or installed when missing.
test-deps:
	@command -v bwrap >/dev/null || { apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null; }
	@pg_isready -q -h 127.0.0.1 -p 5432 || \
		pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql) main start
	@for i in $$(seq 30); do pg_isready -q -h 127.0.0.1 -p 5432 && exit 0; sleep 1; done; \
		echo "Postgres is not answering on 127.0.0.1:5432" >&2; exit 1

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: the files above need formatting" >&2; exit 1; }
	$(GO) vet ./...

test: test-deps lint openapi-check
	$(GO) test -count=1 -race ./...

# openapi.yaml is generated from the handlers' annotations; CI fails on drift.
openapi:
	$(GO) run ./cmd/openapigen

openapi-check:
	$(GO) run ./cmd/openapigen -check
