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

#define ATOMICS (IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
		 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

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
		       IBV_QP_EX_WITH_RDMA_READ | ATOMICS;
	case IBV_QPT_UC:
		return send | write;
	case IBV_QPT_UD:
		return send;
	default:
		return 0;
	}
}

/*
 * rdma_create_qp_ex() of @attr with @ops (none: as rdma_create_qp()); on
 * success @attr gets the QP's caps as rdma_create_qp() gives them back.
 */
static int create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
		     struct ibv_qp_init_attr *attr, uint64_t ops)
{
	struct ibv_qp_init_attr_ex ex;
	int ret;

	memset(&ex, 0, sizeof(ex));
	/* The same leading fields, as librdmacm's rdma_create_qp() has it. */
	memcpy(&ex, attr, sizeof(*attr));
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd ? pd : id->pd;
	if (ops) {
		ex.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ex.send_ops_flags = ops;
	}
	ret = rdma_create_qp_ex(id, &ex);
	if (!ret)
		memcpy(attr, &ex, sizeof(*attr));
	return ret;
}

/* What a provider says of operations it does not take. */
static int refused(int ret)
{
	return ret && (errno == EOPNOTSUPP || errno == ENOSYS);
}

/*
 * CQs or channels the caller set on the id itself: librdmacm destroys
 * them when an attempt fails (ucma_destroy_cqs()), and a provider may
 * refuse the builders (mlx4, qedr; mlx5 the atomics without atomic
 * support).
 */
static int id_has_cqs(const struct rdma_cm_id *id)
{
	return id->send_cq || id->recv_cq || id->send_cq_channel ||
	       id->recv_cq_channel;
}

/*
 * The builders of what the library posts; without the atomics where the
 * device has none; else none.  Not asked for where no attempt may fail
 * (id_has_cqs()), nor of a provider without a create_qp_ex of its own
 * (rwxi_has_qp_ex()), which has no builders.
 */
int rwx_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
		  struct ibv_qp_init_attr *qp_init_attr)
{
	uint64_t ops;
	int ret;

	if (!id || !qp_init_attr)
		return rdma_seterrno(EINVAL);
	ops = id->verbs && rwxi_has_qp_ex(id->verbs) && !id_has_cqs(id) ?
	      send_ops_of(qp_init_attr->qp_type) : 0;
	ret = create_qp(id, pd, qp_init_attr, ops);
	if (refused(ret) && (ops & ATOMICS)) {
		ops &= ~ATOMICS;
		ret = create_qp(id, pd, qp_init_attr, ops);
	}
	if (refused(ret) && ops)
		ret = create_qp(id, pd, qp_init_attr, 0);
	return ret;
}
