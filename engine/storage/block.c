/*
 * storage/block.c — sealing and verifying SSTable blocks (see block.h and
 * engine/doc/sstable_format.md, "Blocks").
 *
 * Design assumptions: a block is small enough to hold in memory twice (stored and
 * uncompressed), at most CF_BLOCK_MAX_RAW uncompressed; a compressed block is always
 * smaller than its uncompressed form (otherwise it is stored raw), so the stored size
 * is bounded by the same limit and a handle's size can be checked before allocating.
 */
#include "storage/block.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "util/crc32c.h"

void
cf_block_handle_put(cf_buf *b, cf_block_handle h)
{
	cf_buf_put_varint(b, h.offset);
	cf_buf_put_varint(b, h.size);
}

cf_block_handle
cf_block_handle_get(cf_rd *r)
{
	cf_block_handle h;

	h.offset = cf_rd_varint(r);
	h.size = cf_rd_varint(r);
	return h;
}

/* The masked CRC of stored bytes followed by the type byte. */
static uint32_t
block_crc(const uint8_t *stored, size_t n, uint8_t type)
{
	uint32_t	crc = cf_crc32c_extend(cf_crc32c(stored, n), &type, 1);

	return cf_crc32c_mask(crc);
}

/* Appends the trailer of the n stored bytes at out->data + start. */
static void
put_trailer(cf_buf *out, size_t start, size_t n, uint8_t type, size_t raw_len)
{
	uint32_t	crc = block_crc(out->data + start, n, type);	/* before out may move */

	cf_buf_put_u8(out, type);
	cf_buf_put_u32(out, (uint32_t) raw_len);
	cf_buf_put_u32(out, crc);
}

cf_status *
cf_block_seal(const void *raw, size_t len, int level, void *cctx, cf_buf *out, uint8_t *type)
{
	size_t		start = out->len;

	if (len > CF_BLOCK_MAX_RAW)
		return cf_status_make(CF_ERR_TOO_LARGE, "block of %zu bytes exceeds the limit of %zu",
							  len, CF_BLOCK_MAX_RAW);
	if (level > 0 && len > 0)
	{
		size_t		bound = ZSTD_compressBound(len);
		uint8_t    *dst = cf_buf_extend(out, bound);
		size_t		got;

		if (dst == NULL)
			return cf_buf_status(out);
		if (cctx)
		{
			/* compress2: the level, and whatever else the caller set on cctx */
			got = ZSTD_CCtx_setParameter((ZSTD_CCtx *) cctx, ZSTD_c_compressionLevel, level);
			if (!ZSTD_isError(got))
				got = ZSTD_compress2((ZSTD_CCtx *) cctx, dst, bound, raw, len);
		}
		else
			got = ZSTD_compress(dst, bound, raw, len, level);
		if (!ZSTD_isError(got) && got < len)
		{
			out->len = start + got;
			put_trailer(out, start, got, CF_BLOCK_ZSTD, len);
			if (type)
				*type = CF_BLOCK_ZSTD;
			return cf_buf_status(out);
		}
		if (ZSTD_isError(got) && ZSTD_getErrorCode(got) == ZSTD_error_memory_allocation)
		{
			out->len = start;
			return cf_status_make(CF_ERR_NO_MEMORY, "zstd: %s", ZSTD_getErrorName(got));
		}
		out->len = start;		/* did not shrink: store raw */
	}
	cf_buf_put(out, raw, len);
	if (!cf_buf_ok(out))
		return cf_buf_status(out);
	put_trailer(out, start, len, CF_BLOCK_RAW, len);
	if (type)
		*type = CF_BLOCK_RAW;
	return cf_buf_status(out);
}

void
cf_block_dctx_free(void *dctx)
{
	ZSTD_freeDCtx((ZSTD_DCtx *) dctx);
}

/*
 * Checks a stored block's trailer and checksum: its compression in *type, its stored
 * byte count in *slen, its uncompressed length in *raw_len (checked against the limit
 * and, for a raw block, against the stored size; a zstd frame's own size is checked
 * when it is decompressed).
 */
static cf_status *
verify(const uint8_t *stored, size_t n, uint8_t *type, size_t *slen, uint32_t *raw_len)
{
	const uint8_t *tr;
	uint32_t	crc;

	if (n < CF_BLOCK_TRAILER_SIZE)
		return cf_status_make(CF_ERR_CORRUPTION, "block of %zu bytes is shorter than its trailer", n);
	*slen = n - CF_BLOCK_TRAILER_SIZE;
	tr = stored + *slen;
	*type = tr[0];
	*raw_len = cf_load_be32(tr + 1);
	crc = cf_load_be32(tr + 5);
	if (crc != block_crc(stored, *slen, *type))
		return cf_status_make(CF_ERR_CORRUPTION, "block checksum mismatch (stored %08x, computed %08x)",
							  crc, block_crc(stored, *slen, *type));
	if (*raw_len > CF_BLOCK_MAX_RAW)
		return cf_status_make(CF_ERR_CORRUPTION, "block length %" PRIu32 " exceeds the limit of %zu",
							  *raw_len, CF_BLOCK_MAX_RAW);
	if (*type == CF_BLOCK_RAW && *raw_len != *slen)
		return cf_status_make(CF_ERR_CORRUPTION, "raw block of %zu bytes claims %" PRIu32,
							  *slen, *raw_len);
	if (*type != CF_BLOCK_RAW && *type != CF_BLOCK_ZSTD)
		return cf_status_make(CF_ERR_CORRUPTION, "unknown block compression %u", *type);
	return NULL;
}

/* Decompresses a verified zstd block's slen stored bytes into dst (raw_len bytes). */
static cf_status *
unzstd(ZSTD_DCtx *dctx, const uint8_t *stored, size_t slen, uint8_t *dst, uint32_t raw_len)
{
	unsigned long long fcs = ZSTD_getFrameContentSize(stored, slen);
	size_t		got;

	if (fcs != raw_len)
		return cf_status_make(CF_ERR_CORRUPTION, "zstd block: frame size %llu, trailer says %" PRIu32,
							  fcs, raw_len);
	got = ZSTD_decompressDCtx(dctx, dst, raw_len, stored, slen);
	if (ZSTD_isError(got) || got != raw_len)
	{
		if (ZSTD_isError(got) && ZSTD_getErrorCode(got) == ZSTD_error_memory_allocation)
			return cf_status_make(CF_ERR_NO_MEMORY, "zstd: %s", ZSTD_getErrorName(got));
		return cf_status_make(CF_ERR_CORRUPTION, "zstd block does not decompress: %s",
							  ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short output");
	}
	return NULL;
}

/* ---- one zstd context per thread, for callers that keep none (dctx NULL) ---- */

static pthread_key_t dctx_key;
static pthread_once_t dctx_once = PTHREAD_ONCE_INIT;
static bool dctx_key_ok;

static void
dctx_destroy(void *p)
{
	ZSTD_freeDCtx((ZSTD_DCtx *) p);
}

static void
dctx_key_init(void)
{
	dctx_key_ok = pthread_key_create(&dctx_key, dctx_destroy) == 0;
}

/* The calling thread's context, created at its first use; NULL on no memory. */
static ZSTD_DCtx *
thread_dctx(void)
{
	ZSTD_DCtx  *d;

	pthread_once(&dctx_once, dctx_key_init);
	if (!dctx_key_ok)
		return NULL;
	if ((d = pthread_getspecific(dctx_key)) == NULL && (d = ZSTD_createDCtx()) != NULL &&
		pthread_setspecific(dctx_key, d) != 0)
	{
		ZSTD_freeDCtx(d);
		d = NULL;
	}
	return d;
}

cf_status *
cf_block_decode(const uint8_t *stored, size_t n, void **dctx, cf_buf *out)
{
	uint8_t		type = CF_BLOCK_RAW;
	size_t		slen = 0;
	uint32_t	raw_len = 0;
	uint8_t    *dst;
	ZSTD_DCtx  *tdctx = NULL;
	cf_status  *s;

	cf_buf_reset(out);
	if ((s = verify(stored, n, &type, &slen, &raw_len)) != NULL)
		return s;
	if (type == CF_BLOCK_RAW)
	{
		cf_buf_put(out, stored, slen);
		return cf_buf_status(out);
	}
	dst = cf_buf_extend(out, raw_len);
	if (dst == NULL && raw_len > 0)
		return cf_buf_status(out);
	if (dctx && *dctx == NULL && (*dctx = ZSTD_createDCtx()) == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "zstd: no memory for a decompression context");
	if (dctx == NULL && (tdctx = thread_dctx()) == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "zstd: no memory for a decompression context");
	if ((s = unzstd(dctx ? (ZSTD_DCtx *) *dctx : tdctx, stored, slen, dst, raw_len)) != NULL)
		cf_buf_reset(out);
	return s;
}

/* Checks a handle against the section end and the block limits. */
static cf_status *
check_handle(const char *path, cf_block_handle h, uint64_t end)
{
	if (h.size < CF_BLOCK_TRAILER_SIZE || h.size > CF_BLOCK_MAX_RAW + CF_BLOCK_TRAILER_SIZE ||
		h.offset > end || h.size > end - h.offset)
		return cf_status_make(CF_ERR_CORRUPTION,
							  "%s: block handle at offset %" PRIu64 " size %" PRIu64
							  " is out of bounds (section ends at %" PRIu64 ")",
							  path, h.offset, h.size, end);
	return NULL;
}

cf_status *
cf_block_read_mapped(const uint8_t *map, const char *path, cf_block_handle h, uint64_t end,
					 void **dctx, cf_buf *out)
{
	cf_status  *s = check_handle(path, h, end);

	if (s)
		return s;
	s = cf_block_decode(map + h.offset, (size_t) h.size, dctx, out);
	return cf_status_wrap(s, "%s: block at offset %" PRIu64, path, h.offset);
}

cf_status *
cf_block_read(cf_rfile *f, cf_block_handle h, uint64_t end, void **dctx, cf_buf *scratch,
			  cf_buf *out)
{
	cf_status  *s;
	uint8_t    *dst;

	if ((s = check_handle(f->path, h, end)) != NULL)
		return s;
	cf_buf_reset(scratch);
	dst = cf_buf_extend(scratch, (size_t) h.size);
	if (dst == NULL)
		return cf_buf_status(scratch);
	s = cf_rfile_read_exact(f, h.offset, dst, (size_t) h.size);
	if (s == NULL)
		s = cf_block_decode(dst, (size_t) h.size, dctx, out);
	return cf_status_wrap(s, "%s: block at offset %" PRIu64, f->path, h.offset);
}
