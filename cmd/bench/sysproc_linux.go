package main

import "syscall"

// stopWithParent has the kernel send the child SIGTERM when the bench
// dies, so no app or bare handler outlives an interrupted run.
func stopWithParent(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGTERM
}
