# perfbisect — see README.md. Every target works on a fresh machine with Go;
# `make test` is what CI runs (.ci/run installs the tools the tests use).

GO          ?= go
BIN         := bin/perfbisect
VERSION     := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS     := -X main.version=$(VERSION)
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

# make bench: how many alternating probe/fio runs, how long each, and where.
BENCH_ROUNDS   ?= 5
BENCH_DURATION ?= 5s
BENCH_DISK     ?= $(CURDIR)/.bench-disk
BENCH_TMPFS    ?= /dev/shm/perfbisect-bench

.PHONY: all build run test lint bench calibrate demo clean

all: build

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/perfbisect

# The main job: the investigation screen on this host (setup, then the walk).
run: build
	./$(BIN)

test: lint
	$(GO) test -race -count=1 ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	$(GO) mod tidy -diff

# Go benchmarks (hot-path cost and allocations), then the probe against fio
# on the disk under this directory and on tmpfs.
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./...
	@mkdir -p $(BENCH_DISK) $(BENCH_TMPFS)
	$(GO) run ./tools/fiocompare -bin $(BIN) -rounds $(BENCH_ROUNDS) -duration $(BENCH_DURATION) \
	  disk=$(BENCH_DISK) tmpfs=$(BENCH_TMPFS)
	@rm -rf $(BENCH_DISK) $(BENCH_TMPFS)

# Real runs that hold the verdicts to their promise (root; a few minutes):
# 20 A/A pairs on the disk, and a 2x change on a throttled loop device.
calibrate: build
	$(GO) run ./tools/calibrate -bin $(BIN)

# The seeds' story on the lab (root, about a minute): an emulated gp2
# volume measured with full burst credits is the reference; then its credits
# are gone and the ebs-lab playbook walks image, bare host, tmpfs, fsync and
# gp3. The lab is taken down whatever happens. DEMO_WORKLOAD=sysbench (or pgbench) tells
# the story as the seeds saw it: sysbench oltp_insert on a throwaway MariaDB
# (PostgreSQL) in the emulated volume (the tools and servers installed).
LAB_BACKING   ?= /var/lib/perfbisect-lab
DEMO_WORKLOAD ?= fsync
demo: build
	./$(BIN) lab up --yes --backing $(LAB_BACKING) --size 30
	./$(BIN) probe --json --workload $(DEMO_WORKLOAD) --dir $(LAB_BACKING)/mnt/data --duration 10s --file-size 16MiB --prealloc write > demo-reference.jsonl || { ./$(BIN) lab down --yes; exit 1; }
	./$(BIN) lab up --yes --drained
	./$(BIN) run --no-tui --yes --playbook ebs-lab --workload $(DEMO_WORKLOAD) --dir $(LAB_BACKING)/mnt/data --reference demo-reference.jsonl --record demo-session-$$(date +%Y%m%d-%H%M%S).jsonl; \
	  status=$$?; ./$(BIN) lab down --yes; exit $$status

clean:
	rm -rf bin $(BENCH_DISK)
