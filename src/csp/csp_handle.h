/* csp/csp_handle.h — what the opaque parac_csp handle holds, for the library's modules
 * (the AC algorithms read the network through parac_csp_network_of). */
#ifndef PARAC_CSP_HANDLE_H
#define PARAC_CSP_HANDLE_H

#include <parac/csp.h>

#include "ac/network.h"

struct parac_csp {
    parac_csp_network network;
    char *objectives; /* XCSP3 <minimize>/<maximize> elements as read (NULL when none), for the writer */
};

static inline const parac_csp_network *parac_csp_network_of(const parac_csp *csp) { return &csp->network; }

/* A new empty handle (network initialised), or NULL with error filled. */
parac_csp *parac_csp_handle_create(parac_error *error);

#endif
