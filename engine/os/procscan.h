/* procscan.h: is a process of a given name running on the host?
 *
 * Owns: the one scan of /proc/<pid>/comm (through the sysroot), used by
 * probe (irqbalance), irqbalanced and firewall detection. Must never: read
 * a process's command line or environment (they may hold secrets), or
 * signal a process. */
#ifndef CX5_PROCSCAN_H
#define CX5_PROCSCAN_H

/* The lowest PID whose comm is exactly COMM, or 0 when none runs (or /proc
 * cannot be listed: the host then looks as if nothing ran). */
int procscan_find(const char *comm);

#endif
