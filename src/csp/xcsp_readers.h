/* csp/xcsp_readers.h — the two XCSP readers. Both continue an xcsp_input whose
 * reader stands on the root <instance> element, and fill an initialised network. */
#ifndef PARAC_CSP_XCSP_READERS_H
#define PARAC_CSP_XCSP_READERS_H

#include <parac/csp.h>

#include "ac/network.h"
#include "csp/xcsp_input.h"

/* xcsp3_read also hands back the <objectives> children verbatim (malloc'd, NULL when none) in
 * *objectives when objectives is not NULL. */
parac_status xcsp3_read(xcsp_input *in, parac_csp_network *network, const parac_csp_load_options *options,
                        char **objectives, parac_error *error);
parac_status xcsp2_read(xcsp_input *in, parac_csp_network *network, const parac_csp_load_options *options,
                        parac_error *error);

/* Walks the children of the root: for each element at depth 1 calls section(context, name),
 * and for each element at depth 2 expands it and calls element(context, section, node);
 * the subtree is then skipped. Ends at the end of the document. */
typedef parac_status (*xcsp_section_fn)(void *context, const char *section, long line, parac_error *error);
typedef parac_status (*xcsp_element_fn)(void *context, const char *section, xmlNodePtr node, parac_error *error);
parac_status xcsp_walk(xcsp_input *in, xcsp_section_fn section, xcsp_element_fn element, void *context,
                       parac_error *error);

/* The text of a node (malloc'd through libxml2: free with xmlFree), never NULL on success. */
char *xcsp_node_text(xmlNodePtr node);
/* The first element child named `name`, or NULL. */
xmlNodePtr xcsp_child(xmlNodePtr node, const char *name);

#endif
