/*
 * tools/commands.h — the subcommands of `colfam` (colfam_main.c's table), one file
 * each. A command takes argv with argv[0] = its own name and returns the exit
 * status: 0 success, 1 failure (the message went to stderr), 2 a usage error.
 */
#ifndef CF_TOOLS_COMMANDS_H
#define CF_TOOLS_COMMANDS_H

/* in cmd_schema.c: colfam schema load FILE [--update] [--dry-run] [-h HOST] [-p PORT] */
int			cft_cmd_schema(int argc, char **argv);

/* in cmd_shell.c: colfam shell [-h HOST] [-p PORT] [-k KS] [-u USER -P PASS] [-f FILE | --batch] */
int			cft_cmd_shell(int argc, char **argv);

/* in cmd_transfer.c: colfam export -k KS CF [-o FILE]; colfam import -k KS CF FILE */
int			cft_cmd_export(int argc, char **argv);
int			cft_cmd_import(int argc, char **argv);

/* in stress.c: colfam stress [OPTIONS] (stress.h) */
int			cft_cmd_stress(int argc, char **argv);

/*
 * in cmd_admin.c: colfam status|info|ring [-h HOST] [-p PORT] (describe_*), and
 * colfam flush|compact|cfstats -k KS [CF...] [--major] (the colfam_* admin methods)
 */
int			cft_cmd_status(int argc, char **argv);
int			cft_cmd_flush(int argc, char **argv);
int			cft_cmd_compact(int argc, char **argv);
int			cft_cmd_cfstats(int argc, char **argv);

/*
 * in cmd_admin.c: colfam snapshot|listsnapshots|clearsnapshot [-k KS]... [-t NAME]
 * (the colfam_*snapshot* admin methods), by argv[0]
 */
int			cft_cmd_snapshot(int argc, char **argv);

#endif							/* CF_TOOLS_COMMANDS_H */
