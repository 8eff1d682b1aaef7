package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// child is a process the bench started: the app or the bare handler.
type child struct {
	name  string
	cmd   *exec.Cmd
	addr  string // host:port it listens on
	stdin io.WriteCloser
	log   string // file with its stderr
	done  chan struct{}
	err   error
}

// startChild runs path with args and env, its stderr to logPath, and waits
// until it prints "listening on http://ADDR" on stdout.
func startChild(ctx context.Context, name, path string, args, env []string, logPath string, wait time.Duration) (*child, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Stderr = logf
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	stopWithParent(cmd.SysProcAttr)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, stdin: stdin, log: logPath, done: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "listening on http://"); ok {
				select {
				case found <- a:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case c.addr = <-found:
		return c, nil
	case <-c.done:
		return nil, fmt.Errorf("%s exited before listening (%v): %s", name, c.err, c.tail())
	case <-timer.C:
		c.stop()
		return nil, fmt.Errorf("%s did not listen within %s: %s", name, wait, c.tail())
	case <-ctx.Done():
		c.stop()
		return nil, ctx.Err()
	}
}

// stop asks the process to shut down (SIGTERM), and kills it after 20 s.
func (c *child) stop() {
	select {
	case <-c.done:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(20 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
	_ = c.stdin.Close()
}

// exited reports whether the process has ended.
func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// tail is the end of the process's log, for an error message.
func (c *child) tail() string {
	b, _ := os.ReadFile(c.log)
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(bytes.TrimSpace(b))
}

// peakRSS is the process's peak resident set (VmHWM), in KiB.
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				return strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	return 0, errors.New("no VmHWM in /proc/" + strconv.Itoa(pid) + "/status")
}

// freeLoopbackPort finds a free port on 127.0.0.1 for a child that needs
// its address before it starts (the app's public origin).
func freeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
