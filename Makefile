# fedcon build, test and reproduction targets. `make help` lists them.
GO       ?= go
BIN      ?= bin/fedcon
# The commit, with -dirty when tracked files differ from it (fedcon version).
COMMIT   := $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
LDFLAGS  := -X github.com/fedcon/fedcon/cmd.buildCommit=$(COMMIT)
PKGS     := ./...
# The shared data folder beside the repository, unless FEDCON_DATA_DIR is set.
ifeq ($(FEDCON_DATA_DIR),)
ifneq ($(wildcard ../shared/datasets),)
export FEDCON_DATA_DIR := $(abspath ../shared/datasets)
endif
endif

.PHONY: help build test test-long fuzz test-short test-federation test-report test-faults test-slurm test-k8s vet fmt bench reproduce reproduce-quick reproduce-drfl-cv check clean

help: ## list targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

build: ## build bin/fedcon
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) .

# The fuzzers, as package:target; each runs FUZZTIME_LONG inputs in make
# test-long (make test runs their seed corpora only: building every fuzzing
# package instrumented costs a fresh clone minutes), FUZZTIME in make fuzz. A count, not a duration: with -fuzztime 5s
# Go 1.26's fuzz coordinator can fail at the deadline with "context deadline
# exceeded" and no crasher (go.dev/issue/75804, fixed in Go 1.27).
FUZZ     := $(addprefix ./datasets:,FuzzParseIDX FuzzParseAdult FuzzParseBreastCancer FuzzParseMonks FuzzParseHeart FuzzParseAbalone FuzzParseCSV FuzzParseLIBSVM) \
            ./federation:FuzzCheckReply ./cmd:FuzzCheckConfigYAML ./experiments/proxal:FuzzDecodeTrial \
            ./experiments:FuzzParseShard ./cmd:FuzzShardManifest ./solver/qp:FuzzSymDenseFrom
FUZZTIME      ?= 3000x
FUZZTIME_LONG ?= 30000x
# The -race -short pass covers RACE's packages; those matching RACE_LONG
# (minutes each under the detector) run in make test-long, the rest in make test.
RACE      := ./solver/... ./experiments/... ./problems/... ./cmd/... ./federation/...
RACE_LONG := github.com/fedcon/fedcon/(solver|experiments/(proxal|conic|drfl)|problems|problems/wdro|cmd)

# The test tiers (CONTRIBUTING.md): go test -short is the quick loop; make
# test the default tier; make test-long the long tests (internal/testutil.Long).
test: vet ## gofmt + vet + unit tests but the long ones (fuzz targets on their seed corpora), -race on the concurrent packages (8.3 min on 2 idle cores from an empty build cache, about 5 with a warm one)
	@fmtout=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$fmtout" ]; then echo "gofmt needed:"; echo "$$fmtout"; exit 1; fi
	$(GO) test -count=1 -timeout 20m $(PKGS)
	$(GO) test -count=1 -timeout 20m -race -short $$($(GO) list $(RACE) | grep -vxE '$(RACE_LONG)')

test-long: ## the long tier: the TestLong tests (FEDCON_LONG=1), -race on the slow packages, every fuzzer with 30,000 inputs (10 to 15 min on 2 cores)
	FEDCON_LONG=1 $(GO) test -count=1 -timeout 30m -run '^TestLong' $(PKGS)
	$(GO) test -count=1 -timeout 30m -race -short $$($(GO) list $(RACE) | grep -xE '$(RACE_LONG)')
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZTIME_LONG)

fuzz: ## every fuzzer, FUZZTIME inputs each (default 3000x)
	@for f in $(FUZZ); do \
	  echo "$(GO) test -run '^$$' -fuzz '^$${f#*:}$$' -fuzztime $(FUZZTIME) $${f%%:*}"; \
	  $(GO) test -run '^$$' -fuzz "^$${f#*:}\$$" -fuzztime $(FUZZTIME) $${f%%:*} || exit $$?; done

test-short: ## the quick loop: go test -short ./... (about 1 min on 2 cores)
	$(GO) test -short $(PKGS)

test-slurm: ## a real one-node Slurm (installs slurm-wlm and munge; root or sudo): 4-task arrays of a sweep and quick Table 4, merged, equal to one process
	deploy/slurm/test-slurm.sh

# Root; builds Kubernetes from the Go module proxy the first time (cached in ~/.cache/fedcon-k8s).
test-k8s: ## a real one-node Kubernetes (etcd, containerd, kube-apiserver, controller-manager, scheduler, kubelet): the Indexed Job of 4 shards of table4 and the merge Job, equal to one process
	deploy/kubernetes/test-k8s.sh

test-federation: ## fedcon serve + 5 fedcon client processes on 127.0.0.1 (mutual TLS, one client killed and restarted, also under partial participation with a round deadline): same answers as in-process (or its replay)
	FEDCON_FEDERATION_PROCESSES=1 $(GO) test -count=1 -timeout 3m -run 'TestProcess|TestReadmeRecipe' -v ./federation

# Installs Debian's chromium when missing (about 80 s as root), then renders a small report in it.
test-report: ## fedcon report rendered by headless Chromium: every table and figure in the DOM
	@command -v chromium >/dev/null || { t0=$$(date +%s); \
	  SUDO=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null || exit $$?; \
	  echo "chromium installed in $$(( $$(date +%s) - t0 )) s"; }
	FEDCON_REPORT_BROWSER=1 $(GO) test -count=1 -timeout 5m -run '^TestReportBrowser$$' -v ./cmd/
test-faults: ## fedcon killed with SIGKILL then resumed, two runs on one --out, tampered stored files, the gate's hostile corpus: exit codes, messages, results and the gate
	FEDCON_FAULTS=1 $(GO) test -count=1 -timeout 5m -run '^TestFault' -v ./cmd

vet: ## go vet
	$(GO) vet $(PKGS)

fmt: ## gofmt -w
	gofmt -w $$(git ls-files '*.go')

bench: ## benchmarks (compare runs with benchstat)
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

reproduce: build ## every table and figure into results/<name>/ (about 2.5 h on 2 cores: docs/usage.md); resumes after Ctrl-C
	$(BIN) reproduce all --yes
	$(BIN) report
	$(BIN) check

reproduce-quick: build ## every experiment, a smaller instance of each, into results/quick/ (4-7 min on 2 cores), then report and the check gate
	$(BIN) reproduce all --quick
	$(BIN) report --quick
	$(BIN) check --quick

reproduce-drfl-cv: build ## DRFL Figures 5, 3, 4, 2 with the paper's 5-fold cross-validation into results/drfl/ (hours each: see README); resumes after Ctrl-C
	for k in 5 3 4 2; do $(BIN) reproduce drfl-figure$$k --cv || exit $$?; done

check: build ## compare results/ with configs/reference/ (exit 1 on any failure)
	$(BIN) check

clean:
	rm -rf bin
