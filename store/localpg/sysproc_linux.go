package localpg

import "syscall"

// stopWithParent has the kernel send the server a fast-shutdown signal when
// the process that started it dies, so a crashed app or a test binary
// killed by its timeout does not leave a server running.
func stopWithParent(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGINT
}
