# a2agen — everyday tasks. Every target works on a fresh machine that reaches
# only the Go module proxy: protos are compiled in-process (no protoc needed).

GO ?= go
PKGS := ./...

# The commands, built with what they were built from stamped (--version): the
# commit of the work tree and whether it had uncommitted changes.
COMMANDS = a2a a2a-scaffold protoc-gen-a2a
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
DIRTY ?= $(shell git status --porcelain 2>/dev/null | grep -q . && echo true)
LDFLAGS = -X github.com/a2agen/a2agen/internal/version.commit=$(COMMIT) -X github.com/a2agen/a2agen/internal/version.dirty=$(DIRTY)

.PHONY: all build dist generate test check test-times test-dockerfile vet lint staticcheck race soak interop check-generate test-protojson test-browser inspect-screenshots golden bench bench-interop charts metrics demo demo-scaffold demo-llm demo-bindings run-example fuzz tools help

all: test

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

build: ## bin/a2a, bin/a2a-scaffold, bin/protoc-gen-a2a from this checkout, the commit stamped (--version)
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o bin/ $(addprefix ./cmd/,$(COMMANDS))

# make dist: the release archives, for these platforms (GOOS/GOARCH), of
# version DIST_VERSION (the exact tag of HEAD, else v<internal/version>-dev).
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
DIST_VERSION ?= $(or $(shell git describe --tags --exact-match 2>/dev/null),v$(shell sed -n 's/^const Version = "\(.*\)"/\1/p' internal/version/version.go)-dev)

dist: ## dist/: static binaries of the three commands per platform (tar.gz, zip), module lists, SHA256SUMS
	$(GO) run ./internal/cmd/dist -out dist -version '$(DIST_VERSION)' -commit '$(COMMIT)' -dirty='$(if $(DIRTY),true,false)' -platforms '$(PLATFORMS)'

generate: ## regenerate a2a/v1 and a2a/v03 from proto/lf/a2a/v1/a2a.proto and proto/a2a/v1/a2a.proto
	$(GO) run ./internal/cmd/generate

# The two loops (CONTRIBUTING.md): make test is the everyday one, make check
# what CI runs after it. .ci/run runs both.
#
# make test builds without cgo (nothing in the module needs it), the
# setting of what its tests build besides: the clone's make build
# (TestFromAClone), the stamped build of internal/version, the scaffolded
# projects (they inherit it), so a cold cache compiles the dependencies once
# for all of them, not once per setting. go vet ran every analyzer already,
# so go test's own vet pass (a subset) is off. TEST_P test binaries run at
# once (go test's default is the number of cores): most of the slow ones wait
# (for PostgreSQL, their agent processes, the builds of scaffolded projects)
# more than they compute. Every go test -count=1 links each test binary
# again (the go command caches no test executable); -ldflags=-w leaves out
# the DWARF debugging information, which no test reads (stack traces come
# from the symbol table), and about a third of the CPU time of each link.
TEST_ENV = CGO_ENABLED=0
TEST_P ?= 4
TEST_FLAGS = -count=1 -vet=off -p $(TEST_P) -timeout 20m -ldflags=-w

test: vet ## the everyday loop: go vet, then every test once without the race detector (drift checks, goldens, process and scaffold end-to-end tests included); says which optional suites ran
	$(TEST_ENV) $(GO) test $(TEST_FLAGS) $(PKGS)
	@sh scripts/optional-suites.sh

check: staticcheck race soak test-protojson test-dockerfile interop ## what CI runs after make test: staticcheck, the race detector, the soak tests, the protojson build, the Dockerfiles' builds, interop with the official SDKs

test-times: ## where make test's time goes: every test once (go test -json), the 20 slowest tests and packages (internal/cmd/testtimes)
	$(TEST_ENV) $(GO) test $(TEST_FLAGS) -json $(PKGS) | $(GO) run ./internal/cmd/testtimes -top 20

vet: ## go vet (without cgo, as make test builds)
	$(TEST_ENV) $(GO) vet $(PKGS)

test-dockerfile: ## TestDockerfile with its builds: the build stage of a scaffolded project's and of examples/travel-agent's Dockerfile run as a builder would (static, -trimpath: everything compiled again), the programs started
	A2AGEN_TEST_DOCKERFILE_BUILD=1 $(GO) test -count=1 -timeout 20m -run '^TestDockerfile$$' ./cmd/a2a-scaffold/

# staticcheck 2026.2.2, fetched from the Go module proxy at this exact version
# (not a dependency of the module).
STATICCHECK_VERSION = v0.8.2

staticcheck: ## staticcheck (pinned)
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) $(PKGS)

lint: vet staticcheck ## go vet and staticcheck

soak: ## the soak tests (examples/echo TestSoak, TestSoakManyParts, TestSoakListing, TestSoakOwners), alone on the machine: hostile clients next to well-behaved ones; 5 MB many-part requests; listings among 200,000 tasks; one owner's flood next to others
	A2AGEN_SOAK=1 $(GO) test -count=1 -run '^TestSoak' -v ./examples/echo/

# -short under the race detector: the tests that build and start whole
# programs (the echo agent, scaffolded projects) skip, since the detector
# sees only the test's own process and make test ran them. RACE_FLAGS=
# runs every test.
RACE_FLAGS ?= -short

race: ## every test with the race detector (RACE_FLAGS, default -short: not the process tests make test ran)
	$(GO) test -race $(RACE_FLAGS) -count=1 -timeout 30m $(PKGS)

interop: ## interoperability with the official Go and JS SDKs (interop/, a module of its own; the JS tests need Node 20, A2AGEN_TEST_JS=1 makes its absence a failure)
	cd interop && $(GO) test -count=1 -timeout 30m ./...

test-protojson: ## the runtime's and server's tests with every ProtoJSON encode and decode through protojson (build tag a2a_protojson): the reference the runtime's own codec is held to
	$(GO) test -count=1 -tags a2a_protojson ./runtime/... ./server/...

test-browser: ## a2a inspect in headless Chromium (Debian's /usr/bin/chromium; internal/inspect/browser, a module of its own): skipped, saying so, without it
	cd internal/inspect/browser && $(GO) test -count=1 -timeout 10m ./...

inspect-screenshots: ## rewrite docs/inspect/*.png from the browser tests (needs chromium)
	cd internal/inspect/browser && A2AGEN_INSPECT_SCREENSHOTS=$(CURDIR)/docs/inspect $(GO) test -count=1 -timeout 10m ./...

check-generate: ## fail when committed generated code (a2a/v1, scaffolded examples) is stale
	$(GO) test -count=1 -run 'TestGeneratedCodeIsFresh' ./internal/gen/
	$(GO) test -count=1 -run 'TestExamplesAreFresh' ./internal/scaffold/

golden: ## rewrite the golden files after a reviewed generator change
	$(GO) test -count=1 -run 'TestGolden' ./internal/gen/ -update
	$(GO) test -count=1 -run 'TestProjectGolden' ./internal/scaffold/ -update

metrics: ## the review's measures of hand-written code: gocyclo (pinned) over 15 and average, functions over 100 lines, duplicate pairs; METRICS_FLAGS=-v names them
	$(GO) run ./internal/cmd/metrics $(METRICS_FLAGS)

bench: ## benchmarks of the runtime (router overhead, streaming)
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

bench-interop: ## load benchmark: examples/echo vs the official Go SDK, side by side (interop/loadbench)
	cd interop && $(GO) run ./loadbench $(BENCH_INTEROP_FLAGS)

charts: ## redraw docs/perf's SVG charts from its result files (loadbench -json, go test -bench output)
	cd interop && $(GO) run ./benchcharts -out ../docs/perf ../docs/perf/*.json ../docs/perf/*.txt

FUZZTIME ?= 30s
FUZZ_TARGETS = \
	runtime:FuzzJSONRPCRequest runtime:FuzzScanEnvelope runtime:FuzzRESTRequest \
	runtime:FuzzPathMatch runtime:FuzzQueryBinding runtime:FuzzSSEReader \
	runtime:FuzzJSONRPCResponse runtime:FuzzRESTError runtime:FuzzGRPCStatus \
	runtime:FuzzServiceParamHeaders runtime:FuzzJSONEncoderMatchesProtojson runtime:FuzzJSONDecoderMatchesProtojson runtime:FuzzJSONDepth \
	internal/manifest:FuzzParse internal/pathtemplate:FuzzParse internal/jcs:FuzzCanonicalize \
	internal/cardsig:FuzzVerify server/storeurl:FuzzParse compat/a2av03:FuzzV03Decode compat/a2av03:FuzzV03ReadCard compat/a2av03:FuzzV03ClientAnswers compat/a2av03:FuzzV03RESTBody host/skilldata:FuzzDecode

fuzz: ## run each fuzz target for FUZZTIME (default 30s)
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$name ($$pkg)"; \
		$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./$$pkg/; \
	done

demo: demo-scaffold demo-llm ## the main demo

demo-scaffold: ## a2a-scaffold creates an agent from examples/travel-agent/agent.yaml, builds it, runs it and calls it
	$(GO) run ./examples/scaffold-demo

run-example: ## serve the committed travel agent (partner token: demo-token)
	cd examples/travel-agent && TRAVEL_AGENT_TOKEN=demo-token $(GO) run .

demo-llm: ## two model-backed agents on loopback (a planner delegating to a specialist) against a scripted model; -llm-base-url/-llm-model for a real one
	$(GO) run ./examples/llm-delegation

demo-bindings: ## one handler on JSON-RPC, HTTP+JSON and gRPC; clients from the card call all eleven operations
	$(GO) run ./examples/bindings-demo
