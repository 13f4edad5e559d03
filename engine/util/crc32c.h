/*
 * util/crc32c.h — CRC-32C (Castagnoli, polynomial 0x1EDC6F41, reflected 0x82F63B78).
 *
 * The checksum of every commit-log record, SSTable block and footer. CRC-32C rather
 * than zlib's CRC-32 because x86-64 (SSE4.2) and ARMv8 compute it in hardware, and it
 * detects more error patterns in short records than CRC-32 does.
 *
 * Thread safety: all functions are safe to call from any thread at any time.
 */
#ifndef CF_UTIL_CRC32C_H
#define CF_UTIL_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/*
 * The CRC of data[0..n) continued from crc, the CRC of what came before, so that
 * cf_crc32c_extend(cf_crc32c(a), b) == cf_crc32c(a ++ b). Start with 0.
 */
uint32_t	cf_crc32c_extend(uint32_t crc, const void *data, size_t n);

static inline uint32_t
cf_crc32c(const void *data, size_t n)
{
	return cf_crc32c_extend(0, data, n);
}

/*
 * Masked form for storing a CRC next to data that may itself contain CRCs: the CRC of
 * a string that embeds its own CRC is a poor check, so stored values are rotated and
 * offset. mask and unmask are inverses.
 */
static inline uint32_t
cf_crc32c_mask(uint32_t crc)
{
	return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

static inline uint32_t
cf_crc32c_unmask(uint32_t masked)
{
	uint32_t	rot = masked - 0xa282ead8u;

	return (rot >> 17) | (rot << 15);
}

/* "sse4.2" or "slice-by-8": which implementation cf_crc32c_extend uses here. */
const char *cf_crc32c_impl(void);

/* The portable implementation, always available; exposed so tests compare the two. */
uint32_t	cf_crc32c_extend_sw(uint32_t crc, const void *data, size_t n);

#endif							/* CF_UTIL_CRC32C_H */
