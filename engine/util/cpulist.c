/*
 * util/cpulist.c — CPU lists (util/cpulist.h).
 */
#include "util/cpulist.h"

#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU_FORMS "none, auto, or CPU numbers and ranges such as 0,2-3"

/* The CPUs this process may run on. */
static cf_status *
allowed_cpus(cpu_set_t *set)
{
	CPU_ZERO(set);
	if (sched_getaffinity(0, sizeof(*set), set) != 0)
		return cf_status_errno(errno, "reading the CPUs this process may run on");
	return NULL;
}

/* Reads a CPU number at *p, advancing it; false when there is none or it is too big. */
static bool
read_cpu(const char **p, int *cpu)
{
	long		v = 0;

	if (!isdigit((unsigned char) **p))
		return false;
	while (isdigit((unsigned char) **p))
	{
		v = v * 10 + (**p - '0');
		if (v > CF_CPU_MAX)
			return false;
		(*p)++;
	}
	*cpu = (int) v;
	return true;
}

/* The allowed set as list text, for messages. */
static char *
format_set(const cpu_set_t *set, char *out, size_t size)
{
	int			cpus[CF_CPU_MAX + 1];
	size_t		n = 0;

	for (int c = 0; c <= CF_CPU_MAX; c++)
		if (CPU_ISSET(c, set))
			cpus[n++] = c;
	return cf_cpu_list_format(cpus, n, out, size);
}

cf_status *
cf_cpu_list_parse(const char *text, int **cpus, size_t *n)
{
	cpu_set_t	allowed;
	cpu_set_t	seen;
	int		   *v;
	size_t		k = 0;
	const char *p = text;
	cf_status  *s;

	*cpus = NULL;
	*n = 0;
	if (text[0] == '\0' || strcmp(text, "none") == 0)
		return NULL;
	if ((s = allowed_cpus(&allowed)) != NULL)
		return s;
	v = malloc((CF_CPU_MAX + 1) * sizeof(*v));
	if (v == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory for a CPU list");
	if (strcmp(text, "auto") == 0)
	{
		for (int c = 0; c <= CF_CPU_MAX; c++)
			if (CPU_ISSET(c, &allowed))
				v[k++] = c;
		*cpus = v;
		*n = k;
		return NULL;
	}
	CPU_ZERO(&seen);
	for (;;)
	{
		int			lo;
		int			hi;

		if (!read_cpu(&p, &lo))
			goto syntax;
		hi = lo;
		if (*p == '-')
		{
			p++;
			if (!read_cpu(&p, &hi) || hi < lo)
				goto syntax;
		}
		for (int c = lo; c <= hi; c++)
		{
			if (CPU_ISSET(c, &seen))
			{
				free(v);
				return cf_status_make(CF_ERR_INVALID, "\"%s\" names CPU %d twice", text, c);
			}
			if (!CPU_ISSET(c, &allowed))
			{
				char		buf[128];

				free(v);
				return cf_status_make(CF_ERR_INVALID, "CPU %d is not one this process may "
									  "run on (it may run on %s)", c,
									  format_set(&allowed, buf, sizeof(buf)));
			}
			CPU_SET(c, &seen);
			v[k++] = c;
		}
		if (*p == '\0')
			break;
		if (*p++ != ',')
			goto syntax;
	}
	*cpus = v;
	*n = k;
	return NULL;

syntax:
	free(v);
	return cf_status_make(CF_ERR_INVALID, "\"%s\" is not a CPU list (valid: " CPU_FORMS
						  "; CPUs 0 to %d)", text, CF_CPU_MAX);
}

char *
cf_cpu_list_format(const int *cpus, size_t n, char *out, size_t size)
{
	size_t		len = 0;

	if (size == 0)
		return out;
	out[0] = '\0';
	for (size_t i = 0; i < n;)
	{
		size_t		j = i;
		char		item[32];
		size_t		ilen;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		if (j > i)
			snprintf(item, sizeof(item), "%s%d-%d", i ? "," : "", cpus[i], cpus[j]);
		else
			snprintf(item, sizeof(item), "%s%d", i ? "," : "", cpus[i]);
		ilen = strlen(item);
		if (len + ilen + 1 > size)
		{
			/* whole items, then ",..." for the rest: drop items until that fits */
			while (len > 0 && len + 5 > size)
			{
				char	   *comma = memrchr(out, ',', len);

				len = comma ? (size_t) (comma - out) : 0;
			}
			snprintf(out + len, size - len, "%s", len > 0 ? ",..." : "...");
			return out;
		}
		memcpy(out + len, item, ilen + 1);
		len += ilen;
		i = j + 1;
	}
	return out;
}
