# Guest script that does nothing and succeeds: for harness tests that judge
# the boot itself (the CPUs that came up).
exit 0
