/*-------------------------------------------------------------------------
 * fdw/colfam_fdw.h — the one shared header of colfam_fdw; its prototypes are
 * grouped by the file that defines them, so it doubles as a map of fdw/.
 *
 * The FDW links only against the engine's client library; it never includes storage
 * or server headers, and the engine never includes PostgreSQL headers.
 *-------------------------------------------------------------------------
 */
#ifndef COLFAM_FDW_H
#define COLFAM_FDW_H

#include "postgres.h"

#include "fmgr.h"
#include "nodes/pg_list.h"

/* Defaults the options fall back to (see option.c). */
#define COLFAM_DEFAULT_PORT 9160
#define COLFAM_DEFAULT_FETCH_SIZE 1000
#define COLFAM_DEFAULT_CONNECT_TIMEOUT_MS 5000

/* in colfam_fdw.c */
extern Datum colfam_fdw_handler(PG_FUNCTION_ARGS);

/* in option.c */
extern Datum colfam_fdw_validator(PG_FUNCTION_ARGS);
extern void colfam_check_options(List *options, Oid catalog);

#endif							/* COLFAM_FDW_H */
