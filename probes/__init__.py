"""Live measurements on this machine: NVML inventory and topology (nvml), host checks (host),
the collective sweep (collectives, multinode), kernel and copy timings (kernels), all through a
recordable session (recording) and run by profile under timeouts (runner). Each probe returns
evidence records; none prints. torch is imported only inside the functions that measure."""
