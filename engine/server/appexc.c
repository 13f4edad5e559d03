/*
 * server/appexc.c — strict message headers and TApplicationException (see appexc.h).
 */
#include "server/appexc.h"

#include <stdio.h>
#include <string.h>

#define STRICT_VERSION 0x80010000u
#define VERSION_MASK 0xffff0000u

#define TTYPE_STOP 0
#define TTYPE_I32 8
#define TTYPE_STRING 11

bool
cf_appexc_peek(cf_slice msg, cf_msg_head *h)
{
	cf_rd		r;
	uint32_t	v;
	uint32_t	nlen;
	const uint8_t *name;

	cf_rd_init(&r, msg.p, msg.len);
	v = cf_rd_u32(&r);
	if (!cf_rd_ok(&r) || (v & VERSION_MASK) != STRICT_VERSION)
		return false;
	nlen = cf_rd_u32(&r);
	if (!cf_rd_ok(&r) || nlen > CF_APPEXC_NAME_MAX)
		return false;
	name = cf_rd_bytes(&r, nlen);
	h->seqid = (int32_t) cf_rd_u32(&r);
	if (!cf_rd_ok(&r))
		return false;
	h->type = (uint8_t) (v & 0xff);
	h->name = cf_slice_of(name, nlen);
	return true;
}

void
cf_appexc_put(cf_buf *out, cf_slice name, int32_t seqid, int32_t type, const char *message)
{
	size_t		mlen = strlen(message);

	cf_buf_put_u32(out, STRICT_VERSION | CF_TMSG_EXCEPTION);
	cf_buf_put_u32(out, (uint32_t) name.len);
	cf_buf_put(out, name.p, name.len);
	cf_buf_put_u32(out, (uint32_t) seqid);
	cf_buf_put_u8(out, TTYPE_STRING);
	cf_buf_put_u16(out, 1);
	cf_buf_put_u32(out, (uint32_t) mlen);
	cf_buf_put(out, message, mlen);
	cf_buf_put_u8(out, TTYPE_I32);
	cf_buf_put_u16(out, 2);
	cf_buf_put_u32(out, (uint32_t) type);
	cf_buf_put_u8(out, TTYPE_STOP);
}

bool
cf_appexc_unknown_method(cf_slice request, cf_buf *reply)
{
	cf_msg_head h;
	char		msg[CF_APPEXC_NAME_MAX + 64];

	if (!cf_appexc_peek(request, &h))
	{
		cf_appexc_put(reply, cf_slice_of("", 0), 0, CF_TAPP_PROTOCOL_ERROR,
					  "not a strict binary protocol message (use TBinaryProtocol, strict)");
		return false;
	}
	switch (h.type)
	{
		case CF_TMSG_ONEWAY:
			return true;
		case CF_TMSG_CALL:
			snprintf(msg, sizeof(msg), "Invalid method name: '%.*s'", (int) h.name.len,
					 (const char *) h.name.p);
			cf_appexc_put(reply, h.name, h.seqid, CF_TAPP_UNKNOWN_METHOD, msg);
			return true;
		default:
			snprintf(msg, sizeof(msg), "invalid message type %u (a server takes CALL "
					 "or ONEWAY)", (unsigned) h.type);
			cf_appexc_put(reply, h.name, h.seqid, CF_TAPP_INVALID_MESSAGE_TYPE, msg);
			return true;
	}
}
