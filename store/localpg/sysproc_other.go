//go:build !linux

package localpg

import "syscall"

// stopWithParent does nothing where the kernel has no parent-death signal:
// there a server outlives a process that dies without calling Stop, and the
// next Start reports it as already running.
func stopWithParent(*syscall.SysProcAttr) {}
