/*
 * util/uuid.c — UUID text form and version-1 UUIDs (see uuid.h).
 *
 * Assumptions: the wall clock (CLOCK_REALTIME) is the time source, as for Cassandra's
 * UUIDGen; the generator keeps one process-wide "last timestamp" under a mutex, which
 * is cheap next to anything that stores the UUID. After fork() the child draws a new
 * node and clock sequence, so parent and child never make the same UUID.
 */
#include "util/uuid.h"

#include "util/buf.h"
#include "util/random.h"

#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


/* Offsets of the dashes in the text form. */
static bool
is_dash_pos(int i)
{
	return i == 8 || i == 13 || i == 18 || i == 23;
}

void
cf_uuid_format(const uint8_t u[CF_UUID_LEN], char out[CF_UUID_TEXT_LEN + 1])
{
	int			o = 0;

	for (int i = 0; i < CF_UUID_LEN; i++)
	{
		if (is_dash_pos(o))
			out[o++] = '-';
		cf_hex_encode(&u[i], 1, out + o);
		o += 2;
	}
	out[o] = '\0';
}

cf_status *
cf_uuid_parse(const char *s, uint8_t out[CF_UUID_LEN])
{
	int			n = 0;

	for (int i = 0; i < CF_UUID_TEXT_LEN; i++)
	{
		int			hi,
					lo;

		if (s[i] == '\0')
			goto bad;
		if (is_dash_pos(i))
		{
			if (s[i] != '-')
				goto bad;
			continue;
		}
		hi = cf_hex_value(s[i]);
		lo = s[i + 1] == '\0' ? -1 : cf_hex_value(s[i + 1]);
		if (hi < 0 || lo < 0)
			goto bad;
		out[n++] = (uint8_t) (hi << 4 | lo);
		i++;
	}
	if (s[CF_UUID_TEXT_LEN] == '\0')
		return NULL;
bad:
	return cf_status_make(CF_ERR_INVALID,
						  "invalid UUID '%.64s': expected 8-4-4-4-12 hex digits "
						  "(xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)", s);
}

int
cf_uuid_version(const uint8_t u[CF_UUID_LEN])
{
	return u[6] >> 4;
}

int64_t
cf_uuid_v1_timestamp(const uint8_t u[CF_UUID_LEN])
{
	uint64_t	time_hi = (uint64_t) (u[6] & 0x0f) << 8 | u[7];
	uint64_t	time_mid = (uint64_t) u[4] << 8 | u[5];

	return (int64_t) (time_hi << 48 | time_mid << 32 | cf_load_be32(u));
}

/* Lays out a version-1, RFC 4122 variant UUID from its three fields. */
static void
put_v1(uint8_t out[CF_UUID_LEN], uint64_t ts, uint16_t clock_seq, const uint8_t node[6])
{
	cf_store_be32(out, (uint32_t) ts);	/* time_low */
	out[4] = (uint8_t) (ts >> 40);	/* time_mid */
	out[5] = (uint8_t) (ts >> 32);
	out[6] = (uint8_t) (0x10 | ((ts >> 56) & 0x0f));	/* version 1, time_hi */
	out[7] = (uint8_t) (ts >> 48);
	out[8] = (uint8_t) (0x80 | ((clock_seq >> 8) & 0x3f));	/* variant 10 */
	out[9] = (uint8_t) clock_seq;
	memcpy(out + 10, node, 6);
}

bool
cf_uuid_v1_from_micros(int64_t unix_micros, uint16_t clock_seq, const uint8_t node[6],
					   uint8_t out[CF_UUID_LEN])
{
	/* Bounds checked before multiplying, so nothing can overflow. */
	const int64_t lo = -(CF_UUID_GREGORIAN_OFFSET / 10);
	const int64_t hi = (CF_UUID_V1_TIMESTAMP_MAX - CF_UUID_GREGORIAN_OFFSET) / 10;
	uint64_t	ts;

	if (unix_micros < lo || unix_micros > hi)
		return false;
	ts = (uint64_t) (unix_micros * 10 + CF_UUID_GREGORIAN_OFFSET);

	put_v1(out, ts, clock_seq, node);
	return true;
}

int64_t
cf_uuid_v1_unix_micros(const uint8_t u[CF_UUID_LEN])
{
	int64_t		d = cf_uuid_v1_timestamp(u) - CF_UUID_GREGORIAN_OFFSET;

	/* Floor division: 100 ns ticks before 1970 round down, not towards zero. */
	return d >= 0 ? d / 10 : -((-d + 9) / 10);
}

/*
 * The generator's state: the last timestamp handed out and the per-process node and
 * clock sequence, all under gen_lock.
 */
static pthread_mutex_t gen_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t gen_atfork_once = PTHREAD_ONCE_INIT;
static bool gen_seeded;
static int64_t gen_last_ts;
static uint16_t gen_clock_seq;
static uint8_t gen_node[6];

static void
gen_prepare(void)
{
	pthread_mutex_lock(&gen_lock);
}

static void
gen_parent(void)
{
	pthread_mutex_unlock(&gen_lock);
}

static void
gen_child(void)
{
	gen_seeded = false;			/* a fresh node, so the child never repeats the parent */
	pthread_mutex_unlock(&gen_lock);
}

static void
gen_register_atfork(void)
{
	pthread_atfork(gen_prepare, gen_parent, gen_child);
}

/*
 * Fills p with n random bytes from getrandom(). Should the kernel refuse (ENOSYS on
 * very old kernels), falls back to bits of the clock, the pid and an address: weak,
 * but the multicast bit still keeps the node off every real MAC address.
 */
static void
random_bytes(uint8_t *p, size_t n)
{
	size_t		got = 0;
	cf_status  *s = cf_random_bytes(p, n);

	if (s == NULL)
		got = n;
	cf_status_free(s);
	if (got < n)
	{
		struct timespec ts;
		uint64_t	x;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = (uint64_t) ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t) getpid() << 32 ^
			(uint64_t) (uintptr_t) p;
		for (; got < n; got++)
		{
			x ^= x >> 29;
			x *= 0xBF58476D1CE4E5B9ull;
			p[got] = (uint8_t) (x >> 56);
		}
	}
}

void
cf_uuid_v1_now(uint8_t out[CF_UUID_LEN])
{
	struct timespec now;
	int64_t		ts;
	uint16_t	clock_seq;
	uint8_t		node[6];

	pthread_once(&gen_atfork_once, gen_register_atfork);
	clock_gettime(CLOCK_REALTIME, &now);
	ts = (int64_t) now.tv_sec * 10000000 + now.tv_nsec / 100 + CF_UUID_GREGORIAN_OFFSET;

	pthread_mutex_lock(&gen_lock);
	if (!gen_seeded)
	{
		uint8_t		r[8];

		random_bytes(r, sizeof(r));
		memcpy(gen_node, r, 6);
		gen_node[0] |= 0x01;	/* multicast bit: never a real MAC address */
		gen_clock_seq = (uint16_t) ((r[6] << 8 | r[7]) & 0x3fff);
		gen_seeded = true;
	}
	if (ts <= gen_last_ts)
		ts = gen_last_ts + 1;
	gen_last_ts = ts;
	clock_seq = gen_clock_seq;
	memcpy(node, gen_node, 6);
	pthread_mutex_unlock(&gen_lock);

	put_v1(out, (uint64_t) ts, clock_seq, node);
}
