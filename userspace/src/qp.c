// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rwx_create_qp(): rdma_create_qp() with the ibv_wr_* builders of the
 * opcodes the library posts, so that its posts take the ibv_wr_* path
 * (post.c); where the provider has no such builders, a QP as
 * rdma_create_qp() makes it.
 */
#include <errno.h>
#include <string.h>

#include "rwx_internal.h"

/* The opcodes the library posts on a QP of @type (0: none asked for). */
static uint64_t send_ops_of(enum ibv_qp_type type)
{
	const uint64_t send = IBV_QP_EX_WITH_SEND |
			      IBV_QP_EX_WITH_SEND_WITH_IMM;
	const uint64_t write = IBV_QP_EX_WITH_RDMA_WRITE |
			       IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;

	switch (type) {
	case IBV_QPT_RC:
		return send | write | IBV_QP_EX_WITH_SEND_WITH_INV |
		       IBV_QP_EX_WITH_RDMA_READ |
		       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	case IBV_QPT_UC:
		return send | write;
	case IBV_QPT_UD:
		return send;
	default:
		return 0;
	}
}

int rwx_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
		  struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex ex;
	int ret;

	if (!id || !qp_init_attr)
		return rdma_seterrno(EINVAL);
	memset(&ex, 0, sizeof(ex));
	/* The same leading fields, as librdmacm's rdma_create_qp() has it. */
	memcpy(&ex, qp_init_attr, sizeof(*qp_init_attr));
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd ? pd : id->pd;
	ex.send_ops_flags = send_ops_of(qp_init_attr->qp_type);
	if (ex.send_ops_flags)
		ex.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ret = rdma_create_qp_ex(id, &ex);
	/* A provider without the builders refuses them so. */
	if (ret && ex.send_ops_flags &&
	    (errno == EOPNOTSUPP || errno == ENOSYS))
		return rdma_create_qp(id, pd, qp_init_attr);
	if (!ret)
		memcpy(qp_init_attr, &ex, sizeof(*qp_init_attr));
	return ret;
}
