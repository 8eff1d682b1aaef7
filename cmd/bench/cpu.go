package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The CPU a page costs per request, read from /proc: the app's process and
// every PostgreSQL process (the postmaster and its children: the
// connections' backends and the background workers). Unlike requests per
// second it hardly moves when other work shares the machine, so a change to
// a page's work shows in it even on a busy machine. Elsewhere than Linux
// nothing is read and the columns say so.

// userHz is the unit of /proc's CPU times (USER_HZ, 100 on every Linux
// architecture Go supports).
const userHz = 100

// cpuOf is the user and system CPU time process pid has used (false when it
// cannot be read).
func cpuOf(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces: fields are counted after
	// its closing parenthesis.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+st) * time.Second / userHz, true
}

// pgCPU is the CPU time of the PostgreSQL server whose data directory is
// dataDir: its postmaster and the postmaster's children now running.
func pgCPU(dataDir string) (time.Duration, bool) {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0, false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pm, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return 0, false
	}
	total, ok := cpuOf(pm)
	if !ok {
		return 0, false
	}
	kids, err := os.ReadFile("/proc/" + strconv.Itoa(pm) + "/task/" + strconv.Itoa(pm) + "/children")
	if err != nil {
		return 0, false
	}
	for _, k := range strings.Fields(string(kids)) {
		pid, err := strconv.Atoi(k)
		if err != nil {
			continue
		}
		if d, ok := cpuOf(pid); ok { // a child that just exited is not counted
			total += d
		}
	}
	return total, true
}

// cpuMeter reads the app's and PostgreSQL's CPU time at the start and the
// end of a round.
type cpuMeter struct {
	appPids []int // every replica
	pgData  string
}

type cpuReading struct {
	app, pg     time.Duration
	appOK, pgOK bool
}

func (m cpuMeter) read() cpuReading {
	var r cpuReading
	r.appOK = len(m.appPids) > 0
	for _, pid := range m.appPids {
		d, ok := cpuOf(pid)
		r.app, r.appOK = r.app+d, r.appOK && ok
	}
	r.pg, r.pgOK = pgCPU(m.pgData)
	return r
}

// perRequest sets the round's CPU per request from two readings (zero
// when either could not be read).
func (r *roundResult) perRequest(before, after cpuReading) {
	if r.Requests == 0 {
		return
	}
	if before.appOK && after.appOK {
		r.AppCPU = (after.app - before.app) / time.Duration(r.Requests)
	}
	// PostgreSQL's sum loses the CPU of a connection that ended during
	// the round: a negative difference is not a figure.
	if before.pgOK && after.pgOK && after.pg >= before.pg {
		r.PGCPU = (after.pg - before.pg) / time.Duration(r.Requests)
	}
}
