# Sourced by guest.sh and perf-smoke.sh (POSIX sh).
# wait_listen PORT: up to 30 s for a server to listen on PORT through the
# RDMA/CM, so that its client does not start too early.
wait_listen() {
	_i=0
	while [ $_i -lt 150 ]; do
		rdma res show cm_id 2> /dev/null | grep 'state LISTEN' | grep -q ":$1 *\$" && return 0
		sleep 0.2
		_i=$((_i + 1))
	done
	return 1
}
