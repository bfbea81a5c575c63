/* kinds/irqnumbers.h: IRQ number lists ("99,109-123"), as the irq kind
 * shares the IRQs it pins and irqbalance-ban stores the IRQs it bans.
 *
 * Owns: their text form, both ways. Must never: touch the host. */
#ifndef CX5_KINDS_IRQNUMBERS_H
#define CX5_KINDS_IRQNUMBERS_H

#include <stddef.h>

/* Sort and deduplicate v in place; the new count. */
size_t irq_numbers_normalize(unsigned *v, size_t n);
/* "99,109-123" from sorted unique numbers; "-" when there are none. */
int irq_numbers_format(const unsigned *v, size_t n, char **ret);
/* The list irq_numbers_format writes, back to sorted unique numbers. */
int irq_numbers_parse(const char *s, unsigned **ret, size_t *ret_n);

#endif
