# mk/engine.mk — builds the engine: one static library of every layer, the programs
# and the C unit tests. Run from the top of the tree (the top Makefile calls it); it is
# kept apart from PGXS so no PostgreSQL flag or header reaches the engine.
#
#   make -f mk/engine.mk            release build in build/release
#   make -f mk/engine.mk SAN=1      AddressSanitizer + UBSan build in build/asan
#
# Everything is derived by wildcard:
#   engine/<layer>/*.c          → build/<v>/libcolfam_engine.a
#   engine/<layer>/<name>_main.c → build/<v>/bin/<name>
#   tests/unit/test_*.c         → build/<v>/tests/test_*  (one cmocka program per module)
#   tests/unit/support/*.c      → linked into every unit test
#   tests/bench/*.c             → build/<v>/bench/<name>  (`benches` only: linked with
#                                 LevelDB, never built by `all` or `unit-tests`)

CC ?= cc
SAN ?= 0

ifeq ($(SAN),1)
O ?= build/asan
OPT = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
else
O ?= build/release
OPT = -O2 -g
endif

WARN = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wpointer-arith -Wformat=2
# The colfam tool's libraries (scripts/deps.sh build): libxml2 reads storage-conf.xml,
# json-c schema.json (it takes the trailing commas the seeds write), yajl streams
# sstable2json imports, readline is the shell's line editor and history. Only libxml2
# needs its own include path; the others are included as <json-c/json.h> and so on.
TOOL_PKGS = libxml-2.0 json-c yajl readline
ENGINE_CFLAGS = -std=gnu11 $(OPT) $(WARN) -fPIC -pthread -D_GNU_SOURCE -Iengine $(EXTRA_CFLAGS) \
                $(shell pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2)
# zstd: SSTable blocks; xxhash: bloom filters; libmd: MD5 tokens; ICU: the collating partitioner;
# libxcrypt: password hashes (service/auth); libyaml: colfamd's configuration file.
ENGINE_LIBS = $(shell pkg-config --libs libzstd libxxhash libmd icu-i18n icu-uc libxcrypt yaml-0.1 2>/dev/null || \
                echo -lzstd -lxxhash -lmd -licui18n -licuuc -licudata -lcrypt -lyaml) \
              $(shell pkg-config --libs $(TOOL_PKGS) 2>/dev/null || \
                echo -lxml2 -ljson-c -lyajl -lreadline) -lm -pthread
TEST_CFLAGS = -std=gnu11 $(OPT) -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2 -pthread -D_GNU_SOURCE -Iengine \
              -Itests/unit $(shell pkg-config --cflags cmocka 2>/dev/null)
TEST_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

MAIN_SRCS = $(wildcard engine/*/*_main.c)
LIB_SRCS = $(filter-out $(MAIN_SRCS),$(wildcard engine/*/*.c))
TEST_SRCS = $(wildcard tests/unit/test_*.c)
SUPPORT_SRCS = $(wildcard tests/unit/support/*.c)

LIB = $(O)/libcolfam_engine.a
# libcolfam: what a client links (the colfam_fdw extension): the client, the Thrift
# codec (every engine/thrift file but the server's dispatch) and util.
CLIENT_SRCS = $(wildcard engine/client/*.c engine/util/*.c) \
              $(filter-out engine/thrift/dispatch%.c,$(wildcard engine/thrift/*.c))
CLIENT_LIB = $(O)/libcolfam.a
LIB_OBJS = $(patsubst %.c,$(O)/obj/%.o,$(LIB_SRCS))
MAIN_OBJS = $(patsubst %.c,$(O)/obj/%.o,$(MAIN_SRCS))
BINS = $(patsubst %_main.c,$(O)/bin/%,$(notdir $(MAIN_SRCS)))
SUPPORT_OBJS = $(patsubst %.c,$(O)/obj/%.o,$(SUPPORT_SRCS))
TESTS = $(patsubst tests/unit/%.c,$(O)/tests/%,$(TEST_SRCS))

.PHONY: all lib bins unit-tests client-lib
all: lib bins client-lib
client-lib: $(CLIENT_LIB)
lib: $(LIB)
bins: $(BINS)
unit-tests: $(TESTS)

$(O)/obj/engine/%.o: engine/%.c
	@mkdir -p $(@D)
	$(CC) $(ENGINE_CFLAGS) -MMD -MP -c $< -o $@

$(O)/obj/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(CLIENT_LIB): $(patsubst %.c,$(O)/obj/%.o,$(filter-out $(MAIN_SRCS),$(CLIENT_SRCS)))
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# A program's main lives in engine/<layer>/<name>_main.c; one link rule per program.
define program_rule
$(O)/bin/$(patsubst %_main.c,%,$(notdir $(1))): $(patsubst %.c,$(O)/obj/%.o,$(1)) $(LIB)
	@mkdir -p $$(@D)
	$$(CC) $$(OPT) -o $$@ $$^ $$(ENGINE_LIBS) $$(LINK_LIBS)
endef
$(foreach m,$(MAIN_SRCS),$(eval $(call program_rule,$(m))))

$(O)/tests/%: $(O)/obj/tests/unit/%.o $(SUPPORT_OBJS) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(TEST_LIBS) $(ENGINE_LIBS) $(LINK_LIBS)

# The tests that start a colfamd (test_colfamd_start) run the one of the same build
# (../bin/colfamd next to them; tests/unit/support/colfamd.h), so building one builds it.
COLFAMD_TESTS := $(shell grep -l test_colfamd_start tests/unit/test_*.c)
$(patsubst tests/unit/%.c,$(O)/tests/%,$(COLFAMD_TESTS)): | $(O)/bin/colfamd

# Benchmarks compare against LevelDB (scripts/deps.sh bench), so they are a goal of
# their own. Their objects get the engine's warnings; the more specific pattern wins
# over the tests' object rule above.
BENCH_SRCS = $(wildcard tests/bench/*.c)
BENCHES = $(patsubst tests/bench/%.c,$(O)/bench/%,$(BENCH_SRCS))
BENCH_CFLAGS = -std=gnu11 $(OPT) $(WARN) -pthread -D_GNU_SOURCE -Iengine -Itests/unit
BENCH_LIBS = -lleveldb

.PHONY: benches
benches: $(BENCHES)

$(O)/obj/tests/bench/%.o: tests/bench/%.c
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -MMD -MP -c $< -o $@

# Benchmarks share the tests' socket helpers (tests/unit/support/sockio).
$(O)/bench/%: $(O)/obj/tests/bench/%.o $(O)/obj/tests/unit/support/sockio.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(BENCH_LIBS) $(ENGINE_LIBS) $(LINK_LIBS)

# Objects are products, not intermediates: keep them so a rebuild relinks nothing new.
.SECONDARY:

-include $(shell find $(O)/obj -name '*.d' 2>/dev/null)

# Fuzz targets (tests/fuzz/fuzz_*.c → build/fuzz/fuzz_*): libFuzzer with ASan and UBSan,
# so they need clang (scripts/deps.sh test installs it); `tests/run.sh fuzz` runs them.
# They link the Thrift codec (colfam's methods too: thrift/admin.c), the client's
# hand-written reply reader (client/reply.c), the shell's lexer and parser, and the
# storage layer with util (fuzz_sstable), nothing of the server.
FUZZ_CC ?= clang
FUZZ_O = build/fuzz
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all
# (util/status.c embeds a flexible-array struct, a GNU extension gcc accepts silently)
FUZZ_CFLAGS = -std=gnu11 -O1 -g -fno-omit-frame-pointer $(FUZZ_SAN) -Wall -Wextra -Werror \
              -Wno-gnu-variable-sized-type-not-at-end -pthread -D_GNU_SOURCE -Iengine
FUZZ_LIB_SRCS = engine/thrift/tbinary.c engine/thrift/tstruct.c engine/thrift/cassandra.c \
                engine/thrift/admin.c \
                engine/client/reply.c engine/tools/cli_lex.c engine/tools/cli_parse.c \
                $(wildcard engine/storage/*.c engine/util/*.c)
FUZZ_LIB_OBJS = $(patsubst %.c,$(FUZZ_O)/obj/%.o,$(FUZZ_LIB_SRCS))
FUZZERS = $(patsubst tests/fuzz/%.c,$(FUZZ_O)/%,$(wildcard tests/fuzz/fuzz_*.c))

.PHONY: fuzz
fuzz: $(FUZZERS)

$(FUZZ_O)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_O)/%: $(FUZZ_O)/obj/tests/fuzz/%.o $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(ENGINE_LIBS)

-include $(shell find $(FUZZ_O)/obj -name '*.d' 2>/dev/null)
