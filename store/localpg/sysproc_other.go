//go:build !linux

package localpg

import (
	"os"
	"syscall"
)

// stopWithParent does nothing where the kernel has no parent-death signal:
// there a server outlives a process that dies without calling Stop, and the
// next Start reports it as already running.
func stopWithParent(*syscall.SysProcAttr) {}

// killGroup kills the server; its backends notice it is gone and exit.
func killGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
