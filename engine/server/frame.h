/*
 * server/frame.h — the framed-transport reader: bytes in, whole frames out.
 *
 * A frame is a 4-byte big-endian length N, then N bytes. The reader is fed whatever a
 * read(2) returned and never executes anything: it says "need more bytes", hands out a
 * complete frame, or reports why the stream is bad (Redis's parser shape). No length is
 * trusted: a frame's memory grows with the bytes that actually arrive, doubling from
 * 64 KiB, so a client announcing a 15 MiB frame and sending nothing holds 64 KiB.
 *
 * Thread safety: none; a reader belongs to its connection's loop thread.
 */
#ifndef CF_SERVER_FRAME_H
#define CF_SERVER_FRAME_H

#include <stddef.h>
#include <stdint.h>

/* One frame's payload; the caller owns it and frees it with free(). */
typedef struct cf_frame
{
	struct cf_frame *next;		/* for the caller's queues */
	int			lane;			/* for the caller: -1 when handed out */
	size_t		len;
	uint8_t		data[];
} cf_frame;

typedef enum cf_frame_result
{
	CF_FRAME_MORE = 0,			/* every byte consumed, no frame complete yet */
	CF_FRAME_DONE,				/* one frame in *out; bytes may remain */
	CF_FRAME_TOO_SHORT,			/* declared length < min */
	CF_FRAME_TOO_LARGE,			/* declared length > max */
	CF_FRAME_UNFRAMED,			/* the "length" is 0x8001...: an unframed strict message */
	CF_FRAME_NO_MEMORY,
} cf_frame_result;

typedef struct cf_frame_reader
{
	size_t		min;
	size_t		max;
	uint8_t		hdr[4];			/* the length being read; after UNFRAMED, the message's
								 * first 4 bytes */
	unsigned	hdr_len;
	uint32_t	declared;		/* the length read (after an error too, for the log) */
	cf_frame   *cur;			/* the frame being filled, NULL between frames */
	size_t		cap;			/* bytes allocated for cur's data */
} cf_frame_reader;

void		cf_frame_reader_init(cf_frame_reader *r, size_t min, size_t max);

/* Frees a partial frame. The reader may be reused after cf_frame_reader_init. */
void		cf_frame_reader_clear(cf_frame_reader *r);

/*
 * Consumes bytes from p[0..n) until a frame completes or an error. *used receives the
 * bytes consumed (n for MORE; up to the frame's end for DONE; up to and including the
 * bad length for errors, so after UNFRAMED the message continues at p + *used with its
 * first 4 bytes in r->hdr). After an error the reader must not be fed again.
 */
cf_frame_result cf_frame_feed(cf_frame_reader *r, const uint8_t *p, size_t n,
							  size_t *used, cf_frame **out);

/* true while part of a frame (or of its length) has been read. */
static inline int
cf_frame_partial(const cf_frame_reader *r)
{
	return r->hdr_len != 0 || r->cur != NULL;
}

#endif							/* CF_SERVER_FRAME_H */
