/*
 * client/pager.c — column and key-range pagers: scans of any size with one page in
 * memory, for the FDW's foreign scans and the tool's listings (contracts in client.h).
 *
 * Continuation needs only byte equality, never the comparator: a SliceRange or a key
 * range restarts AT the last name/key returned (their starts are inclusive) and drops
 * that item when it comes back first, asking for one item more to make up for it; a
 * token range restarts AFTER the last key's token (its start is exclusive). If the
 * last item was deleted between two pages it simply does not come back first, and
 * nothing is dropped.
 *
 * Each pager keeps two arenas: "keep" holds its copies of the caller's inputs for its
 * whole life; "page" holds the current reply and is freed by the next call.
 */
#include "client/client_int.h"

#include <md5.h>
#include <stdlib.h>
#include <string.h>

#include "client/reply.h"
#include "util/hex.h"

/* ---------------------------------------------------------------- copies */

typedef struct keeper
{
	cf_arena   *arena;
	bool		oom;
} keeper;

static cf_slice
keep_slice(keeper *k, cf_slice s)
{
	void	   *p = cf_arena_dup(k->arena, s.len ? s.p : (const uint8_t *) "", s.len);

	if (p == NULL)
	{
		k->oom = true;
		return cf_slice_of("", 0);
	}
	return cf_slice_of(p, s.len);
}

static void
keep_parent(keeper *k, const cf_t_column_parent *in, cf_t_column_parent *out)
{
	*out = *in;
	out->column_family = keep_slice(k, in->column_family);
	out->super_column = keep_slice(k, in->super_column);
}

static void
keep_predicate(keeper *k, const cf_t_slice_predicate *in, cf_t_slice_predicate *out)
{
	*out = *in;
	out->slice_range.start = keep_slice(k, in->slice_range.start);
	out->slice_range.finish = keep_slice(k, in->slice_range.finish);
	out->column_names = NULL;
	if (in->has_column_names && in->n_column_names > 0)
	{
		out->column_names = cf_arena_alloc(k->arena,
										   in->n_column_names * sizeof(cf_slice));
		if (out->column_names == NULL)
		{
			k->oom = true;
			out->n_column_names = 0;
			return;
		}
		for (size_t i = 0; i < in->n_column_names; i++)
			out->column_names[i] = keep_slice(k, in->column_names[i]);
	}
}

static void
set_buf(cf_buf *b, cf_slice s)
{
	cf_buf_reset(b);
	cf_buf_put(b, s.p, s.len);
}

static cf_slice
buf_slice(const cf_buf *b)
{
	return cf_slice_of(b->data ? b->data : (const uint8_t *) "", b->len);
}

/* Page sizes: at least 1, and room for the extra item of a continuation. */
static int32_t
clamp_page(int32_t page_size)
{
	if (page_size < 1)
		return 1;
	return page_size > INT32_MAX - 1 ? INT32_MAX - 1 : page_size;
}

/* A fresh arena for the next page, the previous one freed. */
static cf_status *
new_page(cf_arena **page)
{
	cf_arena_free(*page);
	*page = cf_arena_new(0);
	return *page ? NULL : cf_status_make(CF_ERR_NO_MEMORY, "out of memory for a page");
}

/* Where a scan is: what both pagers track from page to page. */
typedef struct progress
{
	bool		started;		/* a page came back: continue from last */
	bool		done;
	int64_t		remaining;		/* items still wanted */
	cf_buf		last;			/* the name or key of the last item returned */
} progress;

/* The count to ask for: a page, or what is still wanted, plus extra repeated items. */
static int64_t
page_want(const progress *pg, int32_t page_size, int extra)
{
	return (pg->remaining < page_size ? pg->remaining : page_size) + extra;
}

/*
 * Takes a reply of n items (size bytes each; name_of gives an item's name or key) that
 * came back for count want: drops the first when it repeats the last item returned,
 * caps at what is still wanted, remembers the new last item, and ends the scan on a
 * short or empty page. The fresh items are items[*skip .. *skip + *fresh).
 */
static cf_status *
take_page(progress *pg, const char *method, int64_t want, const void *items, size_t n,
		  size_t size, cf_slice (*name_of) (const void *item), size_t *skip,
		  size_t *fresh)
{
	const char *base = items;

	if ((int64_t) n > want)
		return cf_status_make(CF_ERR_PROTOCOL, "%s: %zu items came back for count %d",
							  method, n, (int) want);
	*skip = pg->started && n > 0 && cf_slice_eq(name_of(base), buf_slice(&pg->last));
	*fresh = n - *skip;
	if ((int64_t) *fresh > pg->remaining)
		*fresh = (size_t) pg->remaining;
	if (*fresh > 0)
	{
		set_buf(&pg->last, name_of(base + (*skip + *fresh - 1) * size));
		if (!cf_buf_ok(&pg->last))
			return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		pg->remaining -= (int64_t) *fresh;
		pg->started = true;
	}
	if ((int64_t) n < want || pg->remaining == 0 || *fresh == 0)
		pg->done = true;
	return NULL;
}

/* ---------------------------------------------------------------- column pager */

struct cfc_column_pager
{
	cfc_conn   *c;
	cf_arena   *keep;
	cf_arena   *page;
	cf_slice	key;
	cf_t_column_parent parent;
	cf_t_slice_predicate pred;
	int32_t		page_size;
	int			cl;
	progress	pg;				/* slice range; names use only pg.done */
	size_t		next_name;		/* names: the first name of the next page */
};

static cf_slice
cosc_name(const void *item)
{
	const cf_t_cosc *c = item;

	return c->has_super_column ? c->super_column.name : c->column.name;
}

cf_status *
cfc_column_pager_new(cfc_conn *c, cf_slice key, const cf_t_column_parent *parent,
					 const cf_t_slice_predicate *pred, int32_t page_size, int cl,
					 cfc_column_pager **out)
{
	cfc_column_pager *p;
	keeper		k = {NULL, false};

	*out = NULL;
	if (!pred->has_column_names && !pred->has_slice_range)
		return cf_status_make(CF_ERR_INVALID, "column pager: the predicate has neither "
							  "column_names nor slice_range");
	p = calloc(1, sizeof(*p));
	if (p == NULL || (k.arena = cf_arena_new(4096)) == NULL)
	{
		free(p);
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	}
	p->c = c;
	p->keep = k.arena;
	p->key = keep_slice(&k, key);
	keep_parent(&k, parent, &p->parent);
	keep_predicate(&k, pred, &p->pred);
	p->page_size = clamp_page(page_size);
	p->cl = cl;
	cf_buf_init(&p->pg.last, 0);
	if (p->pred.has_column_names)
		p->pred.has_slice_range = false;	/* column_names wins, as on the server */
	else
		p->pg.remaining = p->pred.slice_range.count > 0 ? p->pred.slice_range.count : 0;
	p->pg.done = p->pred.has_column_names ? p->pred.n_column_names == 0
		: p->pg.remaining == 0;
	if (k.oom)
	{
		cfc_column_pager_free(p);
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	}
	*out = p;
	return NULL;
}

/* Names predicate: the next non-empty chunk of names. */
static cf_status *
column_names_page(cfc_column_pager *p, const cf_t_cosc **items, size_t *n_out)
{
	while (p->next_name < p->pred.n_column_names)
	{
		size_t		left = p->pred.n_column_names - p->next_name;
		size_t		chunk = left < (size_t) p->page_size ? left : (size_t) p->page_size;
		cf_t_slice_predicate pred = p->pred;
		cf_t_cosc  *got;
		size_t		n;
		cf_status  *s;

		pred.column_names += p->next_name;
		pred.n_column_names = chunk;
		s = cfc_get_slice(p->c, p->key, &p->parent, &pred, p->cl, p->page, &got, &n);
		if (s != NULL)
			return s;
		if (n > chunk)
			return cf_status_make(CF_ERR_PROTOCOL, "get_slice: %zu columns came back for "
								  "%zu names asked", n, chunk);
		p->next_name += chunk;
		if (n > 0)
		{
			*items = got;
			*n_out = n;
			return NULL;
		}
	}
	p->pg.done = true;
	return NULL;
}

cf_status *
cfc_column_pager_next(cfc_column_pager *p, const cf_t_cosc **items, size_t *n_out)
{
	cf_t_slice_predicate pred = p->pred;
	int64_t		want;
	cf_t_cosc  *got;
	size_t		n;
	size_t		skip;
	size_t		fresh;
	cf_status  *s;

	*items = NULL;
	*n_out = 0;
	if ((s = new_page(&p->page)) != NULL)
		return s;
	if (p->pg.done)
		return NULL;
	if (p->pred.has_column_names)
		return column_names_page(p, items, n_out);

	want = page_want(&p->pg, p->page_size, p->pg.started);
	pred.slice_range.count = (int32_t) want;
	if (p->pg.started)
		pred.slice_range.start = buf_slice(&p->pg.last);
	s = cfc_get_slice(p->c, p->key, &p->parent, &pred, p->cl, p->page, &got, &n);
	if (s != NULL)
		return s;				/* nothing changed: next() asks again */
	if ((s = take_page(&p->pg, "get_slice", want, got, n, sizeof(*got), cosc_name, &skip,
					   &fresh)) != NULL)
		return s;
	*items = got + skip;
	*n_out = fresh;
	return NULL;
}

void
cfc_column_pager_set_page_size(cfc_column_pager *p, int32_t page_size)
{
	p->page_size = clamp_page(page_size);
}

void
cfc_column_pager_free(cfc_column_pager *p)
{
	if (p == NULL)
		return;
	cf_arena_free(p->keep);
	cf_arena_free(p->page);
	cf_buf_free(&p->pg.last);
	free(p);
}

/* ---------------------------------------------------------------- tokens */

/* The partitioner's short name: what follows the last '.' of a class name. */
static cf_slice
short_name(cf_slice name)
{
	for (size_t i = name.len; i > 0; i--)
		if (name.p[i - 1] == '.')
			return cf_slice_of(name.p + i, name.len - i);
	return name;
}

/* RandomPartitioner: |MD5(key) as a signed big-endian 128-bit integer|, in decimal. */
static void
md5_token_decimal(cf_slice key, cf_buf *out)
{
	MD5_CTX		ctx;
	uint8_t		d[MD5_DIGEST_LENGTH];
	unsigned __int128 v;
	char		digits[40];
	size_t		at = sizeof(digits);

	MD5Init(&ctx);
	MD5Update(&ctx, key.len ? key.p : (const uint8_t *) "", key.len);
	MD5Final(d, &ctx);
	v = ((unsigned __int128) cf_load_be64(d) << 64) | cf_load_be64(d + 8);
	if (v >> 127)
		v = ~v + 1;				/* two's complement negation; -2^127 stays 2^127 */
	do
	{
		digits[--at] = (char) ('0' + (int) (v % 10));
		v /= 10;
	} while (v != 0);
	cf_buf_put(out, digits + at, sizeof(digits) - at);
}

cf_status *
cfc_token_string(cf_slice partitioner, cf_slice key, cf_buf *out)
{
	cf_slice	name = short_name(partitioner);

	if (cf_slice_eq(name, cf_slice_str("RandomPartitioner")))
		md5_token_decimal(key, out);
	else if (cf_slice_eq(name, cf_slice_str("ByteOrderedPartitioner")))
	{
		uint8_t    *hex = cf_buf_extend(out, 2 * key.len);

		if (hex != NULL)
			cf_hex_encode(key.p, key.len, (char *) hex);
	}
	else if (cf_slice_eq(name, cf_slice_str("OrderPreservingPartitioner")) ||
			 cf_slice_eq(name, cf_slice_str("CollatingOrderPreservingPartitioner")))
		cf_buf_put(out, key.p, key.len);	/* the token's text is the key itself */
	else
		return cf_status_make(CF_ERR_NOT_SUPPORTED, "cannot compute tokens for partitioner "
							  "\"%.*s\"; page by key range instead of token range",
							  (int) (partitioner.len > 200 ? 200 : partitioner.len),
							  (const char *) partitioner.p);
	return cf_buf_status(out);
}

/* ---------------------------------------------------------------- range pager */

struct cfc_range_pager
{
	cfc_conn   *c;
	cf_arena   *keep;
	cf_arena   *page;
	cf_t_column_parent parent;
	cf_t_slice_predicate pred;
	cf_t_key_range range;
	bool		by_token;
	int32_t		page_size;
	int			cl;
	progress	pg;				/* pg.last: the last key returned */
	cf_buf		partitioner;	/* describe_partitioner's answer, once asked */
	cf_buf		token;			/* the token text of last */

	/* the page last returned, for cfc_range_pager_rewind */
	const cf_t_key_slice *returned;
	size_t		n_returned;
	bool		prev_started;	/* pg.started and pg.last before that page */
	cf_buf		prev_last;

	/* prefetch: the next page's request sent when a page comes in */
	bool		prefetch;		/* asked for (cfc_range_pager_set_prefetch) */
	int			pages;			/* pages returned so far */
	bool		inflight;		/* the next page's request is sent ... */
	bool		settled;		/* ... and its reply read into ahead */
	bool		early;			/* ... before the page it follows was decoded */
	int32_t		ahead_seqid;
	int64_t		ahead_want;		/* the count it asked */
	cf_arena   *ahead;			/* the reply, once read */
	cf_slice	ahead_reply;
	progress	ahead_pg;		/* where the scan will be once the page it follows
								 * is taken, as the skim of that page saw it */
};

cf_status *
cfc_range_pager_new(cfc_conn *c, const cf_t_column_parent *parent,
					const cf_t_slice_predicate *pred, const cf_t_key_range *range,
					int32_t page_size, int cl, cfc_range_pager **out)
{
	cfc_range_pager *p;
	keeper		k = {NULL, false};

	*out = NULL;
	if ((range->has_start_token || range->has_end_token) &&
		(range->has_start_key || range->has_end_key))
		return cf_status_make(CF_ERR_INVALID, "range pager: a KeyRange takes keys or "
							  "tokens, not both");
	p = calloc(1, sizeof(*p));
	if (p == NULL || (k.arena = cf_arena_new(4096)) == NULL)
	{
		free(p);
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	}
	p->c = c;
	p->keep = k.arena;
	keep_parent(&k, parent, &p->parent);
	keep_predicate(&k, pred, &p->pred);
	p->range = *range;
	p->range.start_key = keep_slice(&k, range->start_key);
	p->range.end_key = keep_slice(&k, range->end_key);
	p->range.start_token = keep_slice(&k, range->start_token);
	p->range.end_token = keep_slice(&k, range->end_token);
	p->by_token = range->has_start_token || range->has_end_token;
	if (!p->by_token)
	{
		/* 0.7 wants start_key with end_key; "" is the unbounded end either way. */
		p->range.has_start_key = true;
		p->range.has_end_key = true;
	}
	else
	{
		p->range.has_start_token = true;
		p->range.has_end_token = true;
	}
	p->page_size = clamp_page(page_size);
	p->cl = cl;
	p->pg.remaining = range->count > 0 ? range->count : 0;
	p->pg.done = p->pg.remaining == 0;
	cf_buf_init(&p->pg.last, 0);
	cf_buf_init(&p->prev_last, 0);
	cf_buf_init(&p->ahead_pg.last, 0);
	cf_buf_init(&p->partitioner, 0);
	cf_buf_init(&p->token, 0);
	if (k.oom)
	{
		cfc_range_pager_free(p);
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	}
	*out = p;
	return NULL;
}

/* The token text of pg's last key, in p->token; asks the partitioner once. */
static cf_status *
last_token(cfc_range_pager *p, const progress *pg)
{
	cf_status  *s;

	if (p->partitioner.len == 0)
	{
		cf_slice	name;

		if ((s = cfc_describe_partitioner(p->c, p->page, &name)) != NULL)
			return cf_status_wrap(s, "range pager: asking the partitioner for tokens");
		set_buf(&p->partitioner, name);
		if ((s = cf_buf_status(&p->partitioner)) != NULL)
			return s;
	}
	cf_buf_reset(&p->token);
	return cfc_token_string(buf_slice(&p->partitioner), buf_slice(&pg->last), &p->token);
}

static cf_slice
key_slice_key(const void *item)
{
	return ((const cf_t_key_slice *) item)->key;
}

/*
 * The KeyRange and count of the page after where pg says the scan is. May ask the
 * partitioner (a call) and may find the range exhausted (pg->done).
 */
static cf_status *
next_request(cfc_range_pager *p, progress *pg, cf_t_key_range *range, int64_t *want)
{
	int			extra = 0;
	cf_status  *s;

	*range = p->range;
	if (pg->started && p->by_token)
	{
		if ((s = last_token(p, pg)) != NULL)
			return s;
		/* (end, end] would be the whole ring again: the range is exhausted. */
		if (cf_slice_eq(buf_slice(&p->token), p->range.end_token))
		{
			pg->done = true;
			return NULL;
		}
		range->start_token = buf_slice(&p->token);
	}
	else if (pg->started)
	{
		range->start_key = buf_slice(&pg->last);
		extra = 1;
	}
	*want = page_want(pg, p->page_size, extra);
	range->count = (int32_t) *want;
	return NULL;
}

/* get_range_slices' arguments for range. */
static void
range_args(const cfc_range_pager *p, const cf_t_key_range *range, cf_t_args *args)
{
	memset(args, 0, sizeof(*args));
	args->column_parent = p->parent;
	args->predicate = p->pred;
	args->range = *range;
	args->consistency_level = p->cl;
}

/*
 * Sends the request of the page after where pg says the scan is, without waiting for
 * its reply, when the socket is free: the server makes that page while the caller
 * works through this one. Any failure only means no prefetch: the page is then asked
 * in the ordinary way.
 */
static void
send_prefetch(cfc_range_pager *p, progress *pg)
{
	cfc_conn   *c = p->c;
	cf_t_key_range range;
	cf_t_args	args;
	int64_t		want;
	int32_t		seqid;
	bool		lost;
	cf_status  *s;

	if (c->fd < 0 || c->in_call || c->prefetcher != NULL)
		return;
	s = next_request(p, pg, &range, &want);
	if (s == NULL && (pg->done || c->fd < 0 || c->prefetcher != NULL))
		return;
	if (s == NULL)
	{
		range_args(p, &range, &args);
		seqid = cfc_begin_frame(c);
		c->in_call = true;		/* a longjmp out of the send leaves it set */
		if ((s = cf_t_write_call(&c->wbuf, CF_T_M_GET_RANGE_SLICES, seqid, &args)) == NULL)
			s = cfc_send_request(c, "get_range_slices", &lost);
		c->in_call = false;
	}
	if (s != NULL)
	{
		cf_status_free(s);
		return;
	}
	p->inflight = true;
	p->settled = false;
	p->early = false;
	p->ahead_seqid = seqid;
	p->ahead_want = want;
	c->prefetcher = p;
}

void
cfc_range_pager_settle(cfc_range_pager *p)
{
	cfc_conn   *c = p->c;
	bool		lost;
	cf_status  *s;

	if (c->prefetcher != p)
		return;
	c->prefetcher = NULL;
	cf_arena_free(p->ahead);
	p->ahead = cf_arena_new(0);
	c->in_call = true;			/* a longjmp out of the wait leaves it set */
	s = p->ahead == NULL ? cf_status_make(CF_ERR_NO_MEMORY, "out of memory for a page")
		: cfc_recv_reply(c, "get_range_slices", p->ahead, &p->ahead_reply, &lost);
	c->in_call = false;
	if (s != NULL)
	{
		cf_status_free(s);
		p->inflight = false;
		cfc_close_socket(c);	/* a reply may be half read: the stream is out of step */
		return;
	}
	p->settled = true;
}

void
cfc_range_pager_forget(cfc_range_pager *p)
{
	if (p->c->prefetcher == p)
		p->c->prefetcher = NULL;
	if (!p->settled)
		p->inflight = false;
}

/* Drops the prefetch, reading its reply off the socket first when it is unread. */
static void
drop_prefetch(cfc_range_pager *p)
{
	cfc_range_pager_settle(p);
	p->inflight = p->settled = p->early = false;
	cf_arena_free(p->ahead);
	p->ahead = NULL;
}

static cf_slice
key_of(const void *item)
{
	return *(const cf_slice *) item;
}

/*
 * take_page on pg (the pager's progress, or the early prefetch's copy of it) for a
 * get_range_slices page; a key range also ends at its end key, which is inclusive:
 * nothing can follow it.
 */
static cf_status *
take_range_page(const cfc_range_pager *p, progress *pg, int64_t want, const void *items,
				size_t n, size_t size, cf_slice (*key) (const void *item), size_t *skip,
				size_t *fresh)
{
	cf_status  *s = take_page(pg, "get_range_slices", want, items, n, size, key, skip,
							  fresh);

	if (s == NULL && !p->by_token && p->range.end_key.len > 0 && *fresh > 0 &&
		cf_slice_eq(buf_slice(&pg->last), p->range.end_key))
		pg->done = true;
	return s;
}

/*
 * The prefetched page's reply is in (p->page): sends the next page's request before
 * the reply is decoded, so that the server makes it meanwhile. Where the scan will be
 * after this page comes from a skim of the reply (its keys: take_range_page's
 * arithmetic on a copy of the progress, in p->ahead_pg); cfc_range_pager_next checks
 * it against the decoded page. A reply the skim does not understand sends nothing: the next page is
 * then prefetched after the decode, as before.
 */
static void
send_early_prefetch(cfc_range_pager *p, int32_t seqid, cf_slice reply, int64_t want)
{
	progress   *ap = &p->ahead_pg;
	cf_slice   *keys;
	size_t		n;
	size_t		skip;
	size_t		fresh;
	cf_status  *s;

	if (!cfc_skim_reply_keys(reply, CF_T_M_GET_RANGE_SLICES, seqid, p->page, &keys, &n))
		return;
	ap->started = p->pg.started;
	ap->done = p->pg.done;
	ap->remaining = p->pg.remaining;
	set_buf(&ap->last, buf_slice(&p->pg.last));
	if (!cf_buf_ok(&ap->last))
		return;
	s = take_range_page(p, ap, want, keys, n, sizeof(*keys), key_of, &skip, &fresh);
	if (s != NULL)
	{
		cf_status_free(s);
		return;
	}
	if (ap->done)
		return;
	send_prefetch(p, ap);
	if (p->inflight)
		p->early = true;
}

/*
 * The prefetched page as the current one (p->page), its rows in *got, *n and the count
 * it asked in *want; false when there is none, or it failed (then it is asked again).
 * The next page's request may be on its way already (send_early_prefetch).
 */
static bool
take_prefetch(cfc_range_pager *p, int64_t *want, cf_t_key_slice **got, size_t *n)
{
	cf_t_result res;
	cf_slice	reply;
	int32_t		seqid;
	cf_status  *s;

	cfc_range_pager_settle(p);
	if (!p->inflight || !p->settled)
	{
		drop_prefetch(p);
		return false;
	}
	p->inflight = p->settled = p->early = false;
	cf_arena_free(p->page);
	p->page = p->ahead;
	p->ahead = NULL;
	reply = p->ahead_reply;
	seqid = p->ahead_seqid;
	*want = p->ahead_want;
	send_early_prefetch(p, seqid, reply, *want);
	s = cfc_decode_result(p->c, CF_T_M_GET_RANGE_SLICES, seqid, reply, p->page, &res);
	if (s == NULL)
		s = cfc_conn_exception_status(p->c, CF_T_M_GET_RANGE_SLICES, p->cl, &res);
	if (s != NULL)
	{
		cf_status_free(s);
		drop_prefetch(p);		/* it followed a page that is asked again */
		return false;
	}
	*got = res.key_slices;
	*n = res.n_key_slices;
	return true;
}

/* Did the early prefetch ask the page after the one just taken (p->pg)? */
static bool
early_prefetch_fits(const cfc_range_pager *p)
{
	const progress *a = &p->ahead_pg;

	return a->started == p->pg.started && a->done == p->pg.done &&
		a->remaining == p->pg.remaining &&
		cf_slice_eq(buf_slice(&a->last), buf_slice(&p->pg.last));
}

cf_status *
cfc_range_pager_next(cfc_range_pager *p, const cf_t_key_slice **rows, size_t *n_out)
{
	cf_t_key_range range;
	int64_t		want;
	cf_t_key_slice *got = NULL;
	size_t		n = 0;
	size_t		skip = 0;
	size_t		fresh = 0;
	cf_status  *s;

	*rows = NULL;
	*n_out = 0;
	p->returned = NULL;
	p->n_returned = 0;
	if ((s = new_page(&p->page)) != NULL)
		return s;
	if (p->pg.done)
		return NULL;
	if (!p->inflight || !take_prefetch(p, &want, &got, &n))
	{
		if ((s = next_request(p, &p->pg, &range, &want)) != NULL)
			return s;
		if (p->pg.done)
			return NULL;
		s = cfc_get_range_slices(p->c, &p->parent, &p->pred, &range, p->cl, p->page,
								 &got, &n);
		if (s != NULL)
			return s;
	}
	p->prev_started = p->pg.started;
	set_buf(&p->prev_last, buf_slice(&p->pg.last));
	if (!cf_buf_ok(&p->prev_last))
		s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	else
		s = take_range_page(p, &p->pg, want, got, n, sizeof(*got), key_slice_key, &skip,
							&fresh);
	if (s != NULL)
	{
		drop_prefetch(p);		/* it followed this page */
		return s;
	}
	*rows = p->returned = got + skip;
	*n_out = p->n_returned = fresh;
	if (p->early && !early_prefetch_fits(p))
		drop_prefetch(p);		/* the skim misread the page: cannot happen */
	/* from the second page on: a scan that came back for more likely goes on */
	if (p->prefetch && ++p->pages >= 2 && !p->pg.done && !p->inflight)
		send_prefetch(p, &p->pg);
	return NULL;
}

cf_status *
cfc_range_pager_rewind(cfc_range_pager *p, size_t used)
{
	if (used >= p->n_returned)
		return NULL;
	drop_prefetch(p);			/* it followed the whole page */
	if (used == 0)
		p->pg.started = p->prev_started;
	set_buf(&p->pg.last, used == 0 ? buf_slice(&p->prev_last) : p->returned[used - 1].key);
	if (!cf_buf_ok(&p->pg.last))
	{
		p->pg.done = true;		/* nowhere to go on from */
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	}
	p->pg.remaining += (int64_t) (p->n_returned - used);
	p->pg.done = false;
	p->n_returned = used;
	return NULL;
}

void
cfc_range_pager_set_page_size(cfc_range_pager *p, int32_t page_size)
{
	if (clamp_page(page_size) != p->page_size)
		drop_prefetch(p);		/* it asked the old size */
	p->page_size = clamp_page(page_size);
}

void
cfc_range_pager_set_prefetch(cfc_range_pager *p, bool on)
{
	if (!on)
		drop_prefetch(p);
	p->prefetch = on;
}

void
cfc_range_pager_set_row_count(cfc_range_pager *p, int32_t count)
{
	if (p->pred.has_slice_range && count > 0 && count != p->pred.slice_range.count)
	{
		drop_prefetch(p);		/* it asked the old count */
		p->pred.slice_range.count = count;
	}
}

void
cfc_range_pager_free(cfc_range_pager *p)
{
	if (p == NULL)
		return;
	drop_prefetch(p);
	cf_arena_free(p->keep);
	cf_arena_free(p->page);
	cf_buf_free(&p->pg.last);
	cf_buf_free(&p->prev_last);
	cf_buf_free(&p->ahead_pg.last);
	cf_buf_free(&p->partitioner);
	cf_buf_free(&p->token);
	free(p);
}
