/*
 * storage/block.h — the checksummed, optionally zstd-compressed block every SSTable
 * section is made of (data, column index, key index, top-level index, statistics).
 *
 * A block on disk is its stored bytes followed by a 9-byte trailer:
 *
 *     stored bytes | u8 compression | u32 uncompressed length | u32 masked CRC-32C
 *
 * compression is CF_BLOCK_RAW (0) or CF_BLOCK_ZSTD (1); a block is stored raw when zstd
 * would not make it smaller. The CRC (cf_crc32c_mask) covers the stored bytes and the
 * compression byte. The uncompressed length is at most CF_BLOCK_MAX_RAW, so a corrupt
 * length can never cause a huge allocation. Integers big-endian. The contents of a
 * block (its records) are the business of its section: see engine/doc/sstable_format.md.
 *
 * A block is located by a handle: the file offset of its first stored byte and its
 * size on disk, trailer included.
 *
 * Thread safety: all functions are reentrant; a cf_buf or ZSTD context passed in
 * belongs to the calling thread for the call (a context may serve one thread after
 * another, never two at once). With dctx NULL the functions use a context of the
 * calling thread's own.
 */
#ifndef CF_STORAGE_BLOCK_H
#define CF_STORAGE_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/env.h"
#include "util/status.h"

#define CF_BLOCK_RAW 0
#define CF_BLOCK_ZSTD 1

#define CF_BLOCK_TRAILER_SIZE 9

/* Largest uncompressed block: 64 MiB. A larger stated length is corruption. */
#define CF_BLOCK_MAX_RAW ((size_t) 64 << 20)

typedef struct cf_block_handle
{
	uint64_t	offset;			/* of the first stored byte in the file */
	uint64_t	size;			/* stored bytes + trailer */
} cf_block_handle;

/* Appends h as two varints (offset, size). */
void		cf_block_handle_put(cf_buf *b, cf_block_handle h);

/* Reads a handle written by cf_block_handle_put; failures show in cf_rd_ok(r). */
cf_block_handle cf_block_handle_get(cf_rd *r);

/*
 * Appends the stored form of raw[0..len) — compressed with zstd at `level` if that
 * shrinks it, else raw — and its trailer to out. level <= 0 means never compress.
 * cctx is a ZSTD_CCtx * to reuse (NULL: a temporary one); parameters the caller set on
 * it other than the level (the SSTable writer turns off Huffman coding of literals)
 * apply. *type, if not NULL, receives
 * the compression chosen. Errors: CF_ERR_TOO_LARGE when len > CF_BLOCK_MAX_RAW;
 * CF_ERR_NO_MEMORY; out's failure (cf_buf_status).
 */
cf_status  *cf_block_seal(const void *raw, size_t len, int level, void *cctx,
						  cf_buf *out, uint8_t *type);

/*
 * Verifies a stored block (stored bytes + trailer, n bytes in all) and writes its
 * uncompressed contents into out, which is reset first. dctx is where the caller keeps
 * a ZSTD_DCtx to reuse across calls, as cf_block_seal's cctx: if *dctx is NULL when a
 * zstd block comes, one is created there, for the caller to free with
 * cf_block_dctx_free (a reader of raw blocks never pays for one); dctx NULL means the
 * calling thread's own context, created at its first zstd block and freed when the
 * thread exits (creating one costs several microseconds: never per block). Errors:
 * CF_ERR_CORRUPTION naming what is wrong
 * (short block, checksum, unknown compression, bad length, zstd failure);
 * CF_ERR_NO_MEMORY. The caller adds which file and offset.
 */
cf_status  *cf_block_decode(const uint8_t *stored, size_t n, void **dctx, cf_buf *out);

/* Frees a context cf_block_decode created in *dctx. NULL is accepted. */
void		cf_block_dctx_free(void *dctx);

/*
 * Reads the block at h from f, verifies and decodes it into out (reset first), using
 * scratch for the stored bytes and dctx as cf_block_decode does. end is the first file
 * offset the block may not reach (the end of the section it belongs to). A handle that
 * is out of bounds, a short read or a bad block is CF_ERR_CORRUPTION whose message
 * names the file and the offset.
 */
cf_status  *cf_block_read(cf_rfile *f, cf_block_handle h, uint64_t end, void **dctx,
						  cf_buf *scratch, cf_buf *out);

/*
 * As cf_block_read, from map, the file's bytes mapped in memory (cf_rfile_map), which
 * needs no scratch: the block is checked and decoded where it lies. path names the
 * file in messages.
 */
cf_status  *cf_block_read_mapped(const uint8_t *map, const char *path, cf_block_handle h,
								 uint64_t end, void **dctx, cf_buf *out);

#endif							/* CF_STORAGE_BLOCK_H */
