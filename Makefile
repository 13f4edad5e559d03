# colfam — top-level Makefile.
#
#   make            the engine (libraries, colfamd, colfam) and the extension (PGXS)
#   make install    the extension into the PostgreSQL that $(PG_CONFIG) names, the
#                   programs into $(PREFIX)/bin
#   make test       every suite (installs missing dependencies first; see tests/run.sh)
#   make demo       the main job: a private PostgreSQL with colfam_fdw created
#   make unit | unit-asan | fuzz | shell | regress | pgtap   one suite alone
#   make bench      colfam against LevelDB in one process; report in build/bench/storage.md
#                   (BENCH_N=entries, BENCH_WIDE_MAX=most columns of a wide row); then
#                   colfamd under `colfam stress` against redis-server under redis-benchmark
#                   over loopback; report in build/bench/server.md (BENCH_CLIENTS,
#                   BENCH_SECONDS, ...: see scripts/bench_server.sh); then colfam_fdw
#                   against a native table and postgres_fdw under pgbench; report in
#                   build/bench/fdw.md (BENCH_FDW_ROWS, ...: see scripts/bench_fdw.sh)
#
# The extension's sources, install scripts and regression tests are found by wildcard.

PG_CONFIG ?= pg_config
PREFIX ?= /usr/local

EXTENSION = colfam_fdw
MODULE_big = colfam_fdw
OBJS = $(patsubst %.c,%.o,$(wildcard fdw/*.c))
DATA = $(wildcard fdw/colfam_fdw--*.sql)
REGRESS = $(basename $(notdir $(sort $(wildcard sql/*.sql))))
PG_CPPFLAGS = -Ifdw -idirafter engine
# engine/ comes after PostgreSQL's headers: its storage/ would shadow theirs.
# The extension embeds libcolfam (client, Thrift codec, util), built by mk/engine.mk.
CLIENT_LIB = build/release/libcolfam.a
SHLIB_LINK = $(CLIENT_LIB) -lmd -pthread
# -Wextra on PostgreSQL's own headers and idioms: unused callback parameters and
# {0}-style initialisers are normal there, so only those two are silenced.
PG_CFLAGS = -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers
EXTRA_CLEAN = build results regression.diffs regression.out

PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(wildcard $(PGXS)),)
include $(PGXS)
else
# No PostgreSQL server headers yet: only the goals that install them can run.
all install installcheck:
	@echo "PostgreSQL server headers not found ($(PG_CONFIG) --pgxs)." >&2
	@echo "hint: run scripts/deps.sh build (as root, or follow what it prints)." >&2
	@exit 1
endif

# PGXS tracks no header dependencies: every object depends on fdw/'s headers and on
# the engine headers fdw/ reaches (client/, util/, thrift/), so a changed struct or a
# function turned inline never leaves a stale object (a crashing backend, or a library
# that does not load) behind.
$(OBJS): $(wildcard fdw/*.h engine/client/*.h engine/util/*.h engine/thrift/*.h)

ENGINE_MAKE = $(MAKE) -f mk/engine.mk

# One engine make at a time: the library comes from `engine` (mk/engine.mk all).
$(shlib): $(CLIENT_LIB)
$(CLIENT_LIB): engine

all: engine

.PHONY: engine engine-asan install-engine deps test demo bench unit unit-asan fuzz shell regress pgtap
engine:
	+$(ENGINE_MAKE) all

engine-asan:
	+$(ENGINE_MAKE) SAN=1 all

install: install-engine
install-engine: engine
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(wildcard build/release/bin/*) $(DESTDIR)$(PREFIX)/bin/

deps:
	scripts/deps.sh test

# The harness builds and installs what it needs itself, so these run on a bare tree.
test: deps
	+tests/run.sh all

unit unit-asan fuzz shell regress pgtap: deps
	+tests/run.sh $@

demo: deps
	+scripts/demo.sh

# Not part of `make test`: it measures, it does not pass or fail on its figures.
BENCH_N ?= 1000000
BENCH_WIDE_MAX ?= 10000000
bench:
	scripts/deps.sh bench
	$(ENGINE_MAKE) benches
	@mkdir -p build/bench
	build/release/bench/bench_storage -n $(BENCH_N) -w $(BENCH_WIDE_MAX) > build/bench/storage.md.tmp
	@mv build/bench/storage.md.tmp build/bench/storage.md
	@cat build/bench/storage.md
	+BENCH_OUT=build/bench/server.md scripts/bench_server.sh
	+BENCH_OUT=build/bench/fdw.md scripts/bench_fdw.sh
