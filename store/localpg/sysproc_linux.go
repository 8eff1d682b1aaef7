package localpg

import "syscall"

// stopWithParent has the kernel send the server a fast-shutdown signal when
// the process that started it dies, so a crashed app or a test binary
// killed by its timeout does not leave a server running.
func stopWithParent(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGINT
}

// killGroup kills the server and every process it started (its session
// leads their process group), as a machine that loses power would.
func killGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
