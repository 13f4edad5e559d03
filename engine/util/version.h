/*
 * util/version.h — the release and the wire API version colfam speaks.
 */
#ifndef CF_UTIL_VERSION_H
#define CF_UTIL_VERSION_H

#define CF_VERSION "0.1.0"

/* Cassandra 0.7's Thrift API version, returned by describe_version. */
#define CF_THRIFT_API_VERSION "19.4.0"

#endif							/* CF_UTIL_VERSION_H */
