/* kernlog.h: the kernel's message buffer, as `dmesg` prints it.
 *
 * Owns: reading /dev/kmsg through the sysroot (on a live host a character
 * device, read record by record without blocking; in a fixture a file of
 * the same records), turning its records into message lines, and, on a
 * live host where /dev/kmsg cannot be read, `journalctl -k -b` (the
 * journal's copy of this boot's kernel messages). Must never: write to or
 * clear the buffer, block on it, or read the host's journal while a
 * sysroot is set. */
#ifndef CX5_KERNLOG_H
#define CX5_KERNLOG_H

#include "base/util.h"

/* This boot's kernel messages, one per line, in *ret_text (caller frees);
 * *ret_source names where they came from ("the kernel ring buffer
 * (/dev/kmsg)", "the kernel ring buffer (journalctl -k)"; static).
 * -ENOENT when neither can be read (callers fall back to log files). */
int kernlog_read(char **ret_text, const char **ret_source);

/* /dev/kmsg records ("6,1234,5678,-;mlx5_core 0000:af:00.0: ...\n",
 * continuation lines " SUBSYSTEM=pci" dropped) as message lines. */
int kernlog_from_kmsg(const char *raw, size_t len, char **ret);

#endif
