// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The reference side of rwx_postbench: librdmacm's own helpers from
 * <rdma/rdma_verbs.h>, which the compiler inlines whole into each
 * wrapper.  A wrapper's entry and return stand for the library
 * function's own: rwx_postbench calls both sides through the same kind
 * of function pointer with the same arguments.
 */
#include <rdma/rdma_verbs.h>

#include "postbench.h"

int rdmacm_post_write(struct rdma_cm_id *id, void *context, void *addr,
		      size_t length, struct ibv_mr *mr, int flags,
		      uint64_t remote_addr, uint32_t rkey)
{
	return rdma_post_write(id, context, addr, length, mr, flags,
			       remote_addr, rkey);
}

int rdmacm_post_send(struct rdma_cm_id *id, void *context, void *addr,
		     size_t length, struct ibv_mr *mr, int flags)
{
	return rdma_post_send(id, context, addr, length, mr, flags);
}
