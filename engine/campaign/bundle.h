/* bundle.h: a run's export bundle (see bundle.c). */
#ifndef CX5_BUNDLE_H
#define CX5_BUNDLE_H

#include "base/util.h"

struct history;
struct run_record;

/* The bundle of one run (with its artifacts) into dir, created or empty:
 * -ENOTEMPTY otherwise, -errno. */
int bundle_export(struct history *h, const struct run_record *run, const char *dir);

#endif
