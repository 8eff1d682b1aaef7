//go:build !linux

package main

import "syscall"

// stopWithParent does nothing where the kernel offers no parent-death
// signal; the bench stops its children itself.
func stopWithParent(*syscall.SysProcAttr) {}
