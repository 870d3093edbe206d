// SPDX-License-Identifier: GPL-2.0-only
/*
 * rwx_testdev: the RoCE v2 port (caps.roce), what ib_cm and rdma_cm need
 * to connect two QPs of an instance through its net device.
 *
 * The port announces RoCE v2 (RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP) on the
 * instance's net device; once a test brings that up with an address,
 * ib_core fills the GID table from it.  ib_mad then creates the GSI QP
 * (QP1), and ib_cm sends its MADs as datagrams on it, addressed by
 * address handles.  A datagram goes nowhere near the net device: the
 * executor delivers it to the QP it names on the same instance, when its
 * destination GID is one of the instance's, with the 40-byte network
 * header a RoCE v2 receiver finds before the payload (an IPv4 header in
 * its last 20 bytes for an IPv4 GID, else an IPv6 header), and drops it,
 * as a wire would, when nothing takes it.  The RC QPs that rdma_cm then
 * connects find each other by QP number, as rwx_testdev_connect()'s do:
 * both ends must be on the instance, which is how the tests run a ULP's
 * target and host in one guest.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_pack.h>

#include "rwx_testdev_internal.h"

enum rdma_link_layer rwx_td_get_link_layer(struct ib_device *ibdev,
					   u32 port_num)
{
	const struct rwx_testdev_caps *caps = &to_tdev(ibdev)->caps;

	return caps->iwarp || caps->roce ? IB_LINK_LAYER_ETHERNET :
					   IB_LINK_LAYER_INFINIBAND;
}

int rwx_td_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		     struct ib_udata *udata)
{
	struct rwx_testdev *tdev = to_tdev(ibah->device);
	const struct rdma_ah_attr *attr = init->ah_attr;
	struct rwx_td_ah *ah = to_tdah(ibah);
	const struct ib_global_route *grh;

	if (udata)
		return -EOPNOTSUPP;
	if (!tdev->caps.roce || attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	if (!grh->sgid_attr)
		return -EINVAL;
	ah->sgid = grh->sgid_attr->gid;
	ah->dgid = grh->dgid;
	atomic_inc(&tdev->nr_ahs);
	return 0;
}

int rwx_td_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	atomic_dec(&to_tdev(ibah->device)->nr_ahs);
	return 0;
}

/* A send WR on the GSI QP: a SEND (with immediate) to an address handle. */
int rwx_td_check_ud_wr(struct rwx_td_qp *qp, const struct ib_send_wr *wr)
{
	const struct ib_ud_wr *ud = ud_wr(wr);

	if (wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_WITH_IMM)
		return -EINVAL;
	if (!ud->ah || ud->ah->device != qp->ibqp.device)
		return -EINVAL;
	return 0;
}

void rwx_td_copy_ud_wr(struct rwx_td_swqe *swqe, const struct ib_send_wr *wr)
{
	const struct ib_ud_wr *ud = ud_wr(wr);
	const struct rwx_td_ah *ah = to_tdah(ud->ah);

	swqe->ud_qpn = ud->remote_qpn;
	swqe->ud_qkey = ud->remote_qkey;
	swqe->ud_sgid = ah->sgid;
	swqe->ud_dgid = ah->dgid;
}

/* Whether @gid is in the instance's GID table (a RoCE v2 entry). */
bool rwx_td_roce_gid_is_ours(struct rwx_testdev *tdev,
			     const union ib_gid *gid)
{
	const struct ib_gid_attr *attr;

	attr = rdma_find_gid_by_port(&tdev->ibdev, gid,
				     IB_GID_TYPE_ROCE_UDP_ENCAP, 1, NULL);
	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}

static bool rwx_td_gid_v4(const union ib_gid *gid)
{
	return ipv6_addr_v4mapped((const struct in6_addr *)gid->raw);
}

/*
 * The network header of a RoCE v2 datagram from @sgid to @dgid with
 * @payload bytes after the BTH and DETH, as a receiver finds it in the
 * first 40 bytes of its buffer.
 */
void rwx_td_roce_hdr(union rdma_network_hdr *hdr, const union ib_gid *sgid,
		     const union ib_gid *dgid, u64 payload)
{
	/* UDP header, BTH, DETH, payload, ICRC */
	u32 udp_len = sizeof(struct udphdr) + IB_BTH_BYTES + IB_DETH_BYTES +
		      payload + 4;
	struct iphdr *ip4 = &hdr->roce4grh;
	struct ipv6hdr *ip6 = (struct ipv6hdr *)&hdr->ibgrh;

	memset(hdr, 0, sizeof(*hdr));
	if (rwx_td_gid_v4(sgid)) {
		ip4->version = 4;
		ip4->ihl = 5;
		ip4->tot_len = htons(sizeof(*ip4) + udp_len);
		ip4->ttl = 64;
		ip4->protocol = IPPROTO_UDP;
		memcpy(&ip4->saddr, &sgid->raw[12], sizeof(ip4->saddr));
		memcpy(&ip4->daddr, &dgid->raw[12], sizeof(ip4->daddr));
		ip4->check = ip_fast_csum(ip4, ip4->ihl);
		return;
	}
	ip6->version = 6;
	ip6->payload_len = htons(udp_len);
	ip6->nexthdr = IPPROTO_UDP;
	ip6->hop_limit = 64;
	memcpy(&ip6->saddr, sgid->raw, sizeof(ip6->saddr));
	memcpy(&ip6->daddr, dgid->raw, sizeof(ip6->daddr));
}

/* What a receive of a datagram from @sgid reports beyond an RC one's. */
void rwx_td_roce_wc(struct ib_wc *wc, const union ib_gid *sgid)
{
	wc->byte_len += sizeof(union rdma_network_hdr);
	wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	wc->network_hdr_type = rwx_td_gid_v4(sgid) ? RDMA_NETWORK_IPV4 :
						     RDMA_NETWORK_IPV6;
	wc->pkey_index = 0;
}
