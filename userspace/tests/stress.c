// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Threads posting to many QPs while another destroys and re-creates them
 * underneath, built with ThreadSanitizer (make check runs it).
 *
 * SLOTS QP slots, each a fake QP with its own SGE limit; a slot's mutex
 * is the application's rule that nobody posts to a QP while it is being
 * destroyed.  POSTERS threads each post to random slots with 1 to 3 SGEs
 * (rdma_post_send's single-SGE fast path and rdma_post_sendv); a
 * re-creator thread replaces a random slot's QP: the same memory, often
 * the same handle and QP number (as uverbs and siw reuse them), a new SGE
 * limit.  The library's cache and each thread's last-QP entry never hear
 * of it.  Every post must still be decided on the QP's own limit: 0
 * within it, EINVAL over it, whatever the threads cached.  TSan watches
 * the library's shared state (the cache, its lock, the per-thread entries)
 * for races.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rwx_internal.h"

#define SLOTS 8
#define POSTERS 4
#define POSTS 20000
#define RECREATES 4000

struct slot {
	pthread_mutex_t lock;
	struct ibv_qp *qp;
	struct rdma_cm_id id;
	uint32_t max_sge;	/* the QP's own limit (under lock) */
};

static struct slot slots[SLOTS];
/*
 * The QPs 256 KiB apart: all of them fall in one entry of the library's
 * cache (caps.c's slot_of()), so posts to different QPs from different
 * threads meet there, under the library's lock alone.
 */
#define QP_SPACING (1 << 18)
static char qp_mem[SLOTS][QP_SPACING] __attribute__((aligned(QP_SPACING)));
static struct ibv_context ctx;
static struct ibv_pd pd;
static char buf[64];
static struct ibv_mr mr;
static atomic_long posted, refused, wrong;
static atomic_int posters_done;

static struct slot *slot_of(const struct ibv_qp *qp)
{
	return &slots[((const char *)qp - qp_mem[0]) / QP_SPACING];
}

/* The provider: fails a WR over the QP's limit, as a device would. */
static int stress_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			    struct ibv_send_wr **bad)
{
	if ((uint32_t)wr->num_sge > slot_of(qp)->max_sge) {
		*bad = wr;
		return ENOMEM;
	}
	atomic_fetch_add(&posted, 1);
	return 0;
}

static int stress_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			   int attr_mask, struct ibv_qp_init_attr *init)
{
	(void)attr_mask;
	(void)init;
	attr->cap.max_send_sge = slot_of(qp)->max_sge;
	attr->cap.max_recv_sge = 1;
	attr->cap.max_send_wr = 64;
	attr->port_num = 1;
	return 0;
}

static int stress_query_device(struct ibv_context *c,
			       struct ibv_device_attr *attr)
{
	(void)c;
	attr->max_sge_rd = 3;
	return 0;
}

static int stress_query_port(struct ibv_context *c, uint8_t port,
			     struct ibv_port_attr *attr)
{
	(void)c;
	(void)port;
	attr->max_msg_sz = 1u << 31;
	return 0;
}

/* A new QP in @s: same memory, a handle and number often reused. */
static void recreate(struct slot *s, unsigned int r)
{
	struct ibv_qp *qp = s->qp;
	uint32_t handle = qp->handle, num = qp->qp_num;

	memset(qp, 0, sizeof(*qp));
	qp->context = &ctx;
	qp->pd = &pd;
	qp->qp_type = IBV_QPT_RC;
	qp->handle = r & 1 ? handle : handle + 1;
	qp->qp_num = r & 2 ? num : num + SLOTS;
	s->max_sge = 1 + r % 3;
	s->id.qp = qp;
}

static void *poster(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;
	struct ibv_sge sgl[3];
	int i, k, ret, want;

	for (i = 0; i < 3; i++)
		sgl[i] = (struct ibv_sge){ (uintptr_t)buf + 8 * i, 8, 1 };
	for (i = 0; i < POSTS; i++) {
		struct slot *s = &slots[rand_r(&seed) % SLOTS];

		k = 1 + rand_r(&seed) % 3;
		pthread_mutex_lock(&s->lock);
		want = (uint32_t)k <= s->max_sge ? 0 : EINVAL;
		errno = 0;
		if (k == 1 && rand_r(&seed) % 2)
			ret = rdma_post_send(&s->id, NULL, buf, 8, &mr, 0);
		else
			ret = rdma_post_sendv(&s->id, NULL, sgl, k, 0);
		if ((want == 0 && ret != 0) ||
		    (want != 0 && (ret != -1 || errno != want)))
			atomic_fetch_add(&wrong, 1);
		if (ret)
			atomic_fetch_add(&refused, 1);
		pthread_mutex_unlock(&s->lock);
	}
	atomic_fetch_add(&posters_done, 1);
	return NULL;
}

static void *recreator(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;
	int n = 0;

	while (atomic_load(&posters_done) < POSTERS || n < RECREATES) {
		struct slot *s = &slots[rand_r(&seed) % SLOTS];

		pthread_mutex_lock(&s->lock);
		recreate(s, rand_r(&seed));
		pthread_mutex_unlock(&s->lock);
		n++;
		if (n >= RECREATES && atomic_load(&posters_done) >= POSTERS)
			break;
	}
	printf("ok stress: %d QPs re-created underneath the posts\n", n);
	return NULL;
}

/* The QPs here are plain ibv_qp, with no ibv_qp_ex around them. */
static struct ibv_qp_ex *stress_qp_to_qp_ex(struct ibv_qp *qp)
{
	(void)qp;
	return NULL;
}

int main(void)
{
	pthread_t th[POSTERS + 1];
	int i;

	ctx.ops.post_send = stress_post_send;
	pd.context = &ctx;
	rwxi_query_qp = stress_query_qp;
	rwxi_query_device = stress_query_device;
	rwxi_query_port = stress_query_port;
	rwxi_qp_to_qp_ex = stress_qp_to_qp_ex;
	mr.context = &ctx;
	mr.pd = &pd;
	mr.addr = buf;
	mr.length = sizeof(buf);
	mr.lkey = 1;
	for (i = 0; i < SLOTS; i++) {
		pthread_mutex_init(&slots[i].lock, NULL);
		slots[i].qp = (struct ibv_qp *)qp_mem[i];
		slots[i].qp->handle = (uint32_t)i;
		slots[i].qp->qp_num = 100 + (uint32_t)i;
		slots[i].id.verbs = &ctx;
		slots[i].id.pd = &pd;
		recreate(&slots[i], (unsigned int)i);
	}
	for (i = 0; i < POSTERS; i++)
		pthread_create(&th[i], NULL, poster, (void *)(uintptr_t)(i + 1));
	pthread_create(&th[POSTERS], NULL, recreator, (void *)(uintptr_t)99);
	for (i = 0; i <= POSTERS; i++)
		pthread_join(th[i], NULL);
	if (atomic_load(&wrong))
		printf("FAIL stress: %ld of %d posts decided on another QP's limit\n",
		       atomic_load(&wrong), POSTERS * POSTS);
	else
		printf("ok stress: %d threads, %d posts (%ld posted, %ld refused), each decided on its QP's own limit\n",
		       POSTERS, POSTERS * POSTS, atomic_load(&posted),
		       atomic_load(&refused));
	return atomic_load(&wrong) ? 1 : 0;
}
