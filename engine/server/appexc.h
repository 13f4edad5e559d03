/*
 * server/appexc.h — the few bytes of the Thrift binary protocol the server core needs
 * on its own: reading a strict message header, and writing a TApplicationException.
 *
 * Used to answer an unframed client, and by colfamd's placeholder handler (every call
 * → UNKNOWN_METHOD) until the Thrift dispatch replaces it. Not a codec: engine/thrift
 * is. Encoding (strict binary, reference/thrift-api-0.7.md, Transport):
 *   i32 0x80010000|type, i32 name length, name, i32 seqid, then for an exception the
 *   struct {1: string message, 2: i32 type} and STOP.
 *
 * Thread safety: pure functions.
 */
#ifndef CF_SERVER_APPEXC_H
#define CF_SERVER_APPEXC_H

#include <stdbool.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/slice.h"

/* Message types of the binary protocol. */
#define CF_TMSG_CALL 1
#define CF_TMSG_REPLY 2
#define CF_TMSG_EXCEPTION 3
#define CF_TMSG_ONEWAY 4

/* TApplicationException types. */
#define CF_TAPP_UNKNOWN 0
#define CF_TAPP_UNKNOWN_METHOD 1
#define CF_TAPP_INVALID_MESSAGE_TYPE 2
#define CF_TAPP_WRONG_METHOD_NAME 3
#define CF_TAPP_BAD_SEQUENCE_ID 4
#define CF_TAPP_MISSING_RESULT 5
#define CF_TAPP_INTERNAL_ERROR 6
#define CF_TAPP_PROTOCOL_ERROR 7

/* Longest method name read from a header. */
#define CF_APPEXC_NAME_MAX 1024

typedef struct cf_msg_head
{
	uint8_t		type;			/* CF_TMSG_* (any value 0..255 as sent) */
	cf_slice	name;			/* inside the message */
	int32_t		seqid;
} cf_msg_head;

/*
 * Reads a strict binary message header (version 0x8001). false when msg is too short,
 * not strict, or its name is longer than CF_APPEXC_NAME_MAX or than what follows.
 */
bool		cf_appexc_peek(cf_slice msg, cf_msg_head *h);

/* Appends an EXCEPTION message carrying a TApplicationException to out. */
void		cf_appexc_put(cf_buf *out, cf_slice name, int32_t seqid, int32_t type,
						  const char *message);

/*
 * The placeholder's answer to one request: a CALL gets UNKNOWN_METHOD "Invalid method
 * name: '<name>'" (Thrift's own wording), a ONEWAY nothing, a REPLY or EXCEPTION from
 * the client INVALID_MESSAGE_TYPE; a message that is not strict binary gets
 * PROTOCOL_ERROR and false (close the connection). A cf_server_handler.handle body.
 */
bool		cf_appexc_unknown_method(cf_slice request, cf_buf *reply);

#endif							/* CF_SERVER_APPEXC_H */
