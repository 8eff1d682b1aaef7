package deploy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"partneradmin/store/pgtest"
)

func TestMain(m *testing.M) {
	code := pgtest.Run(m)
	if partnerAdmin.dir != "" {
		_ = os.RemoveAll(partnerAdmin.dir)
	}
	os.Exit(code)
}

// partnerAdmin is the binary the tests that run replicas share: built
// once per run of the tests (their linking was the larger part of the
// package's time), removed by TestMain. It belongs to the test binary, not
// to one test, as pgtest's cluster does.
var partnerAdmin struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// buildBinary builds cmd/partner-admin as the image does (static, no cgo),
// once for all the tests of this run, and returns its path.
func buildBinary(t *testing.T) string {
	t.Helper()
	partnerAdmin.once.Do(func() {
		partnerAdmin.dir, partnerAdmin.err = os.MkdirTemp("", "deploy-test-")
		if partnerAdmin.err != nil {
			return
		}
		partnerAdmin.path = filepath.Join(partnerAdmin.dir, "partner-admin")
		cmd := exec.Command("go", "build", "-trimpath", "-o", partnerAdmin.path, "partneradmin/cmd/partner-admin")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			partnerAdmin.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if partnerAdmin.err != nil {
		t.Fatal(partnerAdmin.err)
	}
	return partnerAdmin.path
}
