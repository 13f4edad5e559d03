/*
 * storage/sstable_format.h — the constants of the SSTable file format, version 2.
 *
 * The format itself (layout, every record, checksums, versions and why the column
 * index has two levels) is documented in engine/doc/sstable_format.md; block framing
 * in storage/block.h. Change anything here only with a new CF_SSTABLE_VERSION and the
 * doc. Private to the writer, the reader and their tests.
 */
#ifndef CF_STORAGE_SSTABLE_FORMAT_H
#define CF_STORAGE_SSTABLE_FORMAT_H

#include <stdint.h>

/* The last 8 bytes of every SSTable: "cfSSTab1" read as a big-endian u64. */
#define CF_SSTABLE_MAGIC UINT64_C(0x6366535354616231)

/*
 * The one format version this build writes and reads. Version 1 (a key-index entry
 * per row) is refused with a message saying so (see the format doc).
 */
#define CF_SSTABLE_VERSION 2
#define CF_SSTABLE_VERSION_DENSE_INDEX 1

/*
 * Footer: top-level index, bloom and stats handles (u64 offset, u64 size each) | u32
 * version | u32 masked CRC-32C of the 52 bytes before it | u64 magic.
 */
#define CF_SSTABLE_FOOTER_SIZE 64
#define CF_SSTABLE_FOOTER_VERSION_AT 48
#define CF_SSTABLE_FOOTER_CRC_AT 52
#define CF_SSTABLE_FOOTER_MAGIC_AT 56

/* Data-block record tags. A row-start record is exactly CF_SST_TAG_ROW (a row found
 * through its block's key-index entry) or CF_SST_TAG_ROW_WIDE (a row spanning blocks,
 * with a key-index entry of its own); any other tag is a cell whose flags are
 * CF_CELL_DELETED / CF_CELL_EXPIRING, plus SAME_SC when the cell's super column is that
 * of the cell before it in the same block and row. */
#define CF_SST_TAG_ROW 0x40
#define CF_SST_TAG_ROW_WIDE 0x60
#define CF_SST_TAG_SAME_SC 0x80
#define CF_SST_TAG_CELL_MASK 0x83	/* bits a cell tag may carry */

/* Key-index entry kinds (its first byte). */
#define CF_SST_ENTRY_BLOCK 0		/* a data block: its first row and its handle */
#define CF_SST_ENTRY_ROW 1			/* a wide row: the whole row entry */

/* Version of the statistics section's layout (its first byte). */
#define CF_SST_STATS_VERSION 1

/* Defaults (cf_sstable_options fields left 0). */
#define CF_SST_DEFAULT_BLOCK_SIZE 2048
/* Key-index blocks target block_size over this (at least the minimum block size)... */
#define CF_SST_KEY_INDEX_BLOCK_DIVISOR 2
/* ...and column-index blocks this many times block_size (see the format doc). */
#define CF_SST_COLUMN_INDEX_BLOCK_FACTOR 32
#define CF_SST_DEFAULT_ZSTD_LEVEL 3
#define CF_SST_MIN_BLOCK_SIZE 256
#define CF_SST_MAX_BLOCK_SIZE ((size_t) 16 << 20)

#endif							/* CF_STORAGE_SSTABLE_FORMAT_H */
