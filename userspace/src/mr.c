// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Memory registration helpers.  librdmacm's versions dereference id->pd
 * unchecked; these fail with EINVAL instead.
 */
#include <errno.h>

#include "rwx_internal.h"

static struct ibv_mr *reg(struct rdma_cm_id *id, void *addr, size_t length,
			  int access)
{
	if (!id || !id->pd || (!addr && length)) {
		errno = EINVAL;
		return NULL;
	}
	return ibv_reg_mr(id->pd, addr, length, access);
}

struct ibv_mr *rdma_reg_msgs(struct rdma_cm_id *id, void *addr, size_t length)
{
	return reg(id, addr, length, IBV_ACCESS_LOCAL_WRITE);
}

struct ibv_mr *rdma_reg_read(struct rdma_cm_id *id, void *addr, size_t length)
{
	return reg(id, addr, length,
		   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
}

struct ibv_mr *rdma_reg_write(struct rdma_cm_id *id, void *addr,
			      size_t length)
{
	return reg(id, addr, length,
		   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
}

int rdma_dereg_mr(struct ibv_mr *mr)
{
	if (!mr)
		return rdma_seterrno(EINVAL);
	return rdma_seterrno(ibv_dereg_mr(mr));
}
