/* verbs.h: the verb entry points listed in main.c's table. */
#ifndef CX5_VERBS_H
#define CX5_VERBS_H

#include "cli.h"


#endif
