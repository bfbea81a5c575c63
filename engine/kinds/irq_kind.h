/* kinds/irq_kind.h: what the irq kind (kinds/irq.c) offers the kinds next
 * to it: dropping its view of which IRQ serves which queue (channels
 * re-create the IRQs), and the IRQ number lists ("99,109-123") that
 * irqbalance-ban stores. */
#ifndef CX5_KINDS_IRQ_KIND_H
#define CX5_KINDS_IRQ_KIND_H

#include <stddef.h>

/* Forget the ports' IRQ lists: the next IRQ step discovers them anew. */
void irq_kind_forget_owners(void);

/* Sort and deduplicate v in place; the new count. */
size_t irq_numbers_normalize(unsigned *v, size_t n);
/* "99,109-123" from sorted unique numbers; "-" when there are none. */
int irq_numbers_format(const unsigned *v, size_t n, char **ret);
/* The list irq_numbers_format writes, back to sorted unique numbers. */
int irq_numbers_parse(const char *s, unsigned **ret, size_t *ret_n);

#endif
