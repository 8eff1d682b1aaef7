package localpg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ErrNoBinaries reports that no usable initdb and postgres pair was found.
var ErrNoBinaries = errors.New("PostgreSQL server binaries not found: install PostgreSQL 14+ (Debian: apt-get install postgresql) or set DATABASE_URL")

// minMajor is the oldest server we accept: DROP DATABASE ... WITH (FORCE)
// and initdb --no-instructions need 13 and 14.
const minMajor = 14

// debianRoot holds one bin directory per installed major version
// (/usr/lib/postgresql/15/bin); Debian does not put initdb on PATH.
const debianRoot = "/usr/lib/postgresql"

// binaries is one installation's initdb and postgres, taken from the same
// directory so that their versions match.
type binaries struct {
	initdb   string
	postgres string
	major    int
	version  string // as printed by postgres --version
}

// searchPlaces says where findBinaries looks. Tests replace it to look in
// empty places.
type searchPlaces struct {
	binDir     string // when set, the only place looked at
	pathEnv    string // a PATH value
	debianRoot string // holds <major>/bin directories
}

// findBinaries returns the first installation that has both initdb and
// postgres: binDir alone when set, else PATH, else the highest version under
// debianRoot. When wantMajor is not zero (an existing cluster's PG_VERSION),
// only an installation of that major version is accepted, so that a machine
// with several versions starts the one that can read the cluster.
func findBinaries(ctx context.Context, places searchPlaces, wantMajor int) (binaries, error) {
	var dirs []string
	if places.binDir != "" {
		dirs = []string{places.binDir}
	} else {
		dirs = append(dirs, filepath.SplitList(places.pathEnv)...)
		dirs = append(dirs, versionedDirs(places.debianRoot)...)
	}

	var looked []string
	var tooOld []string
	seen := map[string]bool{}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		looked = append(looked, dir)
		initdb := filepath.Join(dir, "initdb")
		if !isExecutable(initdb) {
			continue
		}
		// initdb finds postgres beside its real path, not beside a symlink
		// (/usr/local/bin/initdb -> /usr/lib/postgresql/15/bin/initdb).
		real, err := filepath.EvalSymlinks(initdb)
		if err != nil {
			continue
		}
		realDir := filepath.Dir(real)
		if seen[realDir] {
			continue
		}
		seen[realDir] = true
		postgres := filepath.Join(realDir, "postgres")
		if !isExecutable(postgres) {
			continue
		}
		version, major, err := serverVersion(ctx, postgres)
		if err != nil {
			return binaries{}, err
		}
		if major < minMajor {
			tooOld = append(tooOld, fmt.Sprintf("%s is %s", postgres, version))
			continue
		}
		if wantMajor != 0 && major != wantMajor {
			tooOld = append(tooOld, fmt.Sprintf("%s is %s, the cluster needs %d", postgres, version, wantMajor))
			continue
		}
		return binaries{initdb: filepath.Join(realDir, "initdb"), postgres: postgres, major: major, version: version}, nil
	}
	if len(tooOld) > 0 {
		return binaries{}, fmt.Errorf("localpg: %w (found only: %s)", ErrNoBinaries, strings.Join(tooOld, "; "))
	}
	return binaries{}, fmt.Errorf("localpg: %w (looked in %s)", ErrNoBinaries, strings.Join(looked, ", "))
}

// versionedDirs lists root/<major>/bin, highest version first.
func versionedDirs(root string) []string {
	if root == "" {
		return nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	type versioned struct {
		dir   string
		parts []int
	}
	var found []versioned
	for _, e := range entries {
		parts, ok := parseVersion(e.Name())
		if !ok {
			continue
		}
		found = append(found, versioned{dir: filepath.Join(root, e.Name(), "bin"), parts: parts})
	}
	slices.SortFunc(found, func(a, b versioned) int { return slices.Compare(b.parts, a.parts) })
	dirs := make([]string, 0, len(found))
	for _, v := range found {
		dirs = append(dirs, v.dir)
	}
	return dirs
}

// parseVersion parses "15" or "9.6" into its numbers.
func parseVersion(s string) ([]int, bool) {
	var parts []int
	for _, p := range strings.Split(s, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		parts = append(parts, n)
	}
	return parts, len(parts) > 0
}

var versionLine = regexp.MustCompile(`\(PostgreSQL\) (\d+)(\.\d+)?`)

// serverVersion runs postgres --version, which, unlike starting a server,
// is allowed as root.
func serverVersion(ctx context.Context, postgres string) (string, int, error) {
	out, err := exec.CommandContext(ctx, postgres, "--version").Output()
	if err != nil {
		return "", 0, fmt.Errorf("localpg: %s --version: %w", postgres, err)
	}
	line := strings.TrimSpace(string(out))
	m := versionLine.FindStringSubmatch(line)
	if m == nil {
		return "", 0, fmt.Errorf("localpg: %s --version printed %q, not a PostgreSQL version", postgres, line)
	}
	major, err := strconv.Atoi(m[1])
	if err != nil {
		return "", 0, fmt.Errorf("localpg: parse version %q: %w", line, err)
	}
	return strings.TrimPrefix(m[0], "(PostgreSQL) "), major, nil
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0
}

// clusterMajor reads the major version of an existing cluster, or 0 when
// dataDir holds none.
func clusterMajor(dataDir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, "PG_VERSION"))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("localpg: read cluster version: %w", err)
	}
	parts, ok := parseVersion(strings.TrimSpace(string(b)))
	if !ok {
		return 0, fmt.Errorf("localpg: %s/PG_VERSION holds %q, not a version", dataDir, strings.TrimSpace(string(b)))
	}
	return parts[0], nil
}
