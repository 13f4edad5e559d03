/*
 * util/crc32c.c — CRC-32C, in hardware where the CPU has it.
 *
 * Hand-written rather than taken from a library: Debian's only packaged CRC-32C library
 * (google/crc32c) is C++ and would pull libstdc++ into the engine and the PostgreSQL
 * extension for ~100 lines of code, and zlib computes the other polynomial. The SSE4.2
 * path runs at ~8 bytes a cycle and is chosen at run time, so one binary serves every
 * x86-64 CPU; the slice-by-8 tables (8 KiB) are the fallback. Inputs of 384 bytes and
 * more run three chains of the instruction side by side (see crc32c_sse42).
 */
#include "util/crc32c.h"

#include <pthread.h>
#include <string.h>

#define POLY 0x82f63b78u		/* reflected Castagnoli polynomial */

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void
table_build(void)
{
	for (uint32_t i = 0; i < 256; i++)
	{
		uint32_t	c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
}

uint32_t
cf_crc32c_extend_sw(uint32_t crc, const void *data, size_t n)
{
	const uint8_t *p = data;
	uint32_t	c = ~crc;

	pthread_once(&table_once, table_build);

	/* Byte at a time up to 8-byte alignment, then eight bytes a step. */
	while (n && ((uintptr_t) p & 7))
	{
		c = (c >> 8) ^ table[0][(c ^ *p++) & 0xff];
		n--;
	}
	while (n >= 8)
	{
		uint32_t	lo;
		uint32_t	hi;

		memcpy(&lo, p, 4);
		memcpy(&hi, p + 4, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		lo = __builtin_bswap32(lo);
		hi = __builtin_bswap32(hi);
#endif
		lo ^= c;
		c = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^
			table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
			table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
			table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	while (n--)
		c = (c >> 8) ^ table[0][(c ^ *p++) & 0xff];
	return ~c;
}

#if defined(__x86_64__)

/*
 * The crc32 instruction has a latency of 3 cycles and a throughput of one a cycle, so
 * one chain of it runs at a third of the unit's speed. Long inputs are cut into
 * stripes of three lanes of LANE bytes, each lane's CRC computed in its own chain,
 * interleaved, and the three joined: the CRC register is linear, so the register after
 * lanes a, b, c is shift(shift(A) ^ B) ^ C, where A is a's register (from the register
 * before it), B and C those of b and c from zero, and shift(r) the register r becomes
 * after LANE zero bytes — a linear map, applied as four table lookups (shift_table,
 * built once with the instruction itself).
 */
#define LANE 128

static uint32_t shift_table[4][256];
static pthread_once_t shift_once = PTHREAD_ONCE_INIT;

__attribute__((target("sse4.2")))
static uint32_t
advance_zeros(uint32_t r)
{
	uint64_t	c = r;

	for (int i = 0; i < LANE / 8; i++)
		c = __builtin_ia32_crc32di(c, 0);
	return (uint32_t) c;
}

static void
shift_build(void)
{
	for (int k = 0; k < 4; k++)
		for (uint32_t b = 0; b < 256; b++)
			shift_table[k][b] = advance_zeros(b << (8 * k));
}

static inline uint32_t
shift_lane(uint32_t r)
{
	return shift_table[0][r & 0xff] ^ shift_table[1][(r >> 8) & 0xff] ^
		shift_table[2][(r >> 16) & 0xff] ^ shift_table[3][r >> 24];
}

__attribute__((target("sse4.2")))
static uint32_t
crc32c_sse42(uint32_t crc, const void *data, size_t n)
{
	const uint8_t *p = data;
	uint64_t	c = ~crc;

	while (n && ((uintptr_t) p & 7))
	{
		c = __builtin_ia32_crc32qi((uint32_t) c, *p++);
		n--;
	}
	if (n >= 3 * LANE)
		pthread_once(&shift_once, shift_build);
	while (n >= 3 * LANE)
	{
		uint64_t	a = c,
					b = 0,
					d = 0;

		for (size_t i = 0; i < LANE; i += 8)
		{
			uint64_t	wa,
						wb,
						wd;

			memcpy(&wa, p + i, 8);
			memcpy(&wb, p + LANE + i, 8);
			memcpy(&wd, p + 2 * LANE + i, 8);
			a = __builtin_ia32_crc32di(a, wa);
			b = __builtin_ia32_crc32di(b, wb);
			d = __builtin_ia32_crc32di(d, wd);
		}
		c = shift_lane(shift_lane((uint32_t) a) ^ (uint32_t) b) ^ (uint32_t) d;
		p += 3 * LANE;
		n -= 3 * LANE;
	}
	while (n >= 8)
	{
		uint64_t	w;

		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
		p += 8;
		n -= 8;
	}
	while (n--)
		c = __builtin_ia32_crc32qi((uint32_t) c, *p++);
	return ~(uint32_t) c;
}

static int
have_sse42(void)
{
	/* Every thread computes the same answer; atomics keep that race well-defined. */
	static int	have = -1;
	int			h = __atomic_load_n(&have, __ATOMIC_RELAXED);

	if (h < 0)
	{
		__builtin_cpu_init();
		h = __builtin_cpu_supports("sse4.2") ? 1 : 0;
		__atomic_store_n(&have, h, __ATOMIC_RELAXED);
	}
	return h;
}

uint32_t
cf_crc32c_extend(uint32_t crc, const void *data, size_t n)
{
	return have_sse42() ? crc32c_sse42(crc, data, n) : cf_crc32c_extend_sw(crc, data, n);
}

const char *
cf_crc32c_impl(void)
{
	return have_sse42() ? "sse4.2" : "slice-by-8";
}

#else

uint32_t
cf_crc32c_extend(uint32_t crc, const void *data, size_t n)
{
	return cf_crc32c_extend_sw(crc, data, n);
}

const char *
cf_crc32c_impl(void)
{
	return "slice-by-8";
}

#endif
