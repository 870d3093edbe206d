# SPDX-License-Identifier: GPL-2.0-only
#
# rdma-rwx: the kernel module is described by Kbuild; this Makefile is the
# front door for people and CI.
#
#   make              build the module against KDIR
#   make demo         the main job: the engine moving data in a QEMU guest
#   make check        every test suite; ends with "N passed, N failed, N skipped"
#   make deps         install build and test dependencies from Debian's archive
#   make docs         API reference from the kernel-doc comments, in build/Documentation
#   make bench        RW context cost, rdma_rwx against ib_core, in a QEMU guest
#   make pair         two guests on a wire: the engine's NVMe-oF target on one
#                     kernel, the host on another (PAIR="6.1 6.12 engine",
#                     RWX_PAIR_PLAN="fio netem:loss1 kill": tools/guest/pair.sh)
#   make soak         the wire's whole fault matrix, four pairs (tools/soak.sh)
#   make ulps         the kernel's users of rdma_rw (nvmet-rdma, ib_isert,
#                     ib_srpt, rpcrdma; ksmbd where SMB Direct is on), from
#                     Debian's linux-source, built to run on the engine
#                     (build/ulps)

# Default KDIR: the running kernel's headers when installed, else the newest
# installed Debian 6.12 headers.
KDIR ?= $(firstword \
	$(wildcard /lib/modules/$(shell uname -r)/build) \
	$(shell ls -d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null | sort -V | tail -n 1))

.PHONY: all modules clean deps check demo docs bench kdir-check ulps pair soak

all: modules

kdir-check:
	@if [ -z "$(KDIR)" ] || [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "No kernel build tree found: install linux-headers-$$(uname -r)," \
		     "or Debian's 6.12 headers (make deps), or pass KDIR=/path/to/build." >&2; \
		exit 1; \
	fi

modules: kdir-check
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

ulps: modules
	bash tools/build-ulps.sh $(KDIR) $(CURDIR) $(CURDIR)/build/ulps

clean:
	@if [ -n "$(KDIR)" ] && [ -f "$(KDIR)/Makefile" ]; then \
		$(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	rm -rf build

deps:
	bash tools/deps.sh

check:
	bash tools/check.sh

demo:
	bash tools/demo.sh

bench:
	bash tools/bench.sh

PAIR ?= 6.1 6.12 engine
pair:
	bash tools/pair.sh $(PAIR)

soak:
	bash tools/soak.sh

docs: deps
	bash tools/docs.sh "$$(tools/kernel/build-test-kernel.sh --source)"

# Debian packages (debian/): rdma-rwx-dkms, librdmarwx0, librdmarwx-dev,
# rdma-rwx-tools, built out of tree into build/deb and checked by lintian.
.PHONY: deb
deb:
	bash tools/build-debs.sh
