/* verbs.h: the verb entry points listed in main.c's table. */
#ifndef CX5_VERBS_H
#define CX5_VERBS_H

#include "cli.h"

int verb_show(struct cli *cli, int argc, char **argv);
int verb_counters(struct cli *cli, int argc, char **argv);
extern const struct cli_option counters_options[];
int verb_validate(struct cli *cli, int argc, char **argv);
int verb_serve(struct cli *cli, int argc, char **argv);
int verb_bench(struct cli *cli, int argc, char **argv);
extern const struct cli_option validate_options[];
extern const struct cli_option serve_options[];
extern const struct cli_option bench_options[];

int verb_history(struct cli *cli, int argc, char **argv);
int verb_compare(struct cli *cli, int argc, char **argv);
extern const struct cli_option compare_options[];
int verb_export(struct cli *cli, int argc, char **argv);
int verb_mirror(struct cli *cli, int argc, char **argv);
int verb_analyze(struct cli *cli, int argc, char **argv);
extern const struct cli_option history_options[];
extern const struct cli_option export_options[];
extern const struct cli_option mirror_verb_options[];
extern const struct cli_option analyze_options[];

int verb_plan(struct cli *cli, int argc, char **argv);
int verb_apply(struct cli *cli, int argc, char **argv);
int verb_rollback(struct cli *cli, int argc, char **argv);
int verb_commit(struct cli *cli, int argc, char **argv);
extern const struct cli_option plan_options[];
extern const struct cli_option apply_options[];
extern const struct cli_option rollback_options[];
extern const struct cli_option commit_options[];

int verb_verify(struct cli *cli, int argc, char **argv);
int verb_doctor(struct cli *cli, int argc, char **argv);
extern const struct cli_option verify_cli_options[];
extern const struct cli_option doctor_cli_options[];

int verb_snapshot(struct cli *cli, int argc, char **argv);
extern const struct cli_option snapshot_options[];

int verb_campaign(struct cli *cli, int argc, char **argv);
int verb_report(struct cli *cli, int argc, char **argv);
int verb_tune(struct cli *cli, int argc, char **argv);
extern const struct cli_option tune_options[];
extern const struct cli_option campaign_options[];
extern const struct cli_option report_options[];

#endif
