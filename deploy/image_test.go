package deploy

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"partneradmin/store/pgtest"
	"partneradmin/web/webtest"
)

// buildah runs buildah on the test's own storage: vfs (works without
// overlay or fuse), kept under the temporary directory between runs so
// that the builder base is made once.
type buildah struct {
	bin   string
	store []string
}

func newBuildah(t *testing.T) *buildah {
	t.Helper()
	bin, err := exec.LookPath("buildah")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("buildah is not installed (Debian: apt-get install buildah)")
		}
		t.Skip("buildah is not installed (Debian: apt-get install buildah): the image is not built")
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("partner-admin-buildah-%d", os.Geteuid()))
	return &buildah{bin: bin, store: []string{"--root", filepath.Join(dir, "root"), "--runroot", filepath.Join(dir, "run"), "--storage-driver", "vfs"}}
}

// run runs a buildah command and returns its standard output.
func (b *buildah) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, b.bin, append(slices.Clone(b.store), args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("buildah %s: %w\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return strings.TrimSpace(out.String()), nil
}

func (b *buildah) must(ctx context.Context, t *testing.T, args ...string) string {
	t.Helper()
	out, err := b.run(ctx, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// builderBase makes, once per Go version, the image the Containerfile's
// builder stage starts from where no registry is reachable: the local Go
// toolchain at /usr/local/go, GOPATH=/go, a /tmp and the CA bundle — what
// the official golang image provides and the build uses.
func builderBase(ctx context.Context, t *testing.T, b *buildah) string {
	t.Helper()
	goroot := goEnv(t, "GOROOT")
	name := "localhost/partner-admin-go-builder:" + strings.TrimPrefix(runtime.Version(), "go")
	if _, err := b.run(ctx, "inspect", "--type", "image", name); err == nil {
		return name
	}
	skel := t.TempDir()
	for _, d := range []string{"tmp", "go", "etc/ssl/certs", "root"} {
		if err := os.MkdirAll(filepath.Join(skel, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(skel, "tmp"), 0o1777); err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	if err != nil {
		t.Fatalf("the host's CA bundle, for the builder: %v", err)
	}
	if err := os.WriteFile(filepath.Join(skel, "etc/ssl/certs/ca-certificates.crt"), ca, 0o644); err != nil {
		t.Fatal(err)
	}
	c := b.must(ctx, t, "from", "scratch")
	defer func() { _, _ = b.run(context.WithoutCancel(ctx), "rm", c) }()
	b.must(ctx, t, "copy", c, goroot, "/usr/local/go")
	b.must(ctx, t, "copy", c, skel, "/")
	b.must(ctx, t, "config", "--env", "PATH=/usr/local/go/bin:/go/bin:/usr/bin:/bin", "--env", "GOPATH=/go", "--env", "HOME=/root", c)
	b.must(ctx, t, "commit", "-q", c, name)
	return name
}

// imageConfig is the part of `buildah inspect` the test checks.
type imageConfig struct {
	OCIv1 struct {
		Config struct {
			User         string
			Entrypoint   []string
			Env          []string
			ExposedPorts map[string]struct{}
		} `json:"config"`
	}
}

// TestImage builds the image from the Containerfile with buildah (the
// builder stage from the local toolchain, the host's module and build
// caches lent to it), checks what it holds (one static binary and the CA
// bundle, a numeric non-root user, no shell), then runs it against the
// test's PostgreSQL and a sandbox of the Partner API and signs in through
// it over HTTP.
func TestImage(t *testing.T) {
	t.Parallel()
	b := newBuildah(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	start := time.Now()
	base := builderBase(ctx, t, b)
	t.Logf("builder base %s ready after %s", base, time.Since(start).Round(time.Second))

	gomodcache, gocache := goEnv(t, "GOMODCACHE"), goEnv(t, "GOCACHE")
	image := fmt.Sprintf("localhost/partner-admin:test-%d", os.Getpid())
	built := time.Now()
	b.must(ctx, t, "bud", "--isolation", "chroot", "--layers=false", "-q", "-t", image,
		"--build-arg", "GO_IMAGE="+base,
		"-v", gomodcache+":/go/pkg/mod", "-v", gocache+":/root/.cache/go-build",
		"-f", "../Containerfile", "..")
	t.Cleanup(func() { _, _ = b.run(context.Background(), "rmi", "-f", image) })
	t.Logf("image built in %s", time.Since(built).Round(time.Second))

	// What the image says of itself.
	var cfg imageConfig
	if err := json.Unmarshal([]byte(b.must(ctx, t, "inspect", "--type", "image", image)), &cfg); err != nil {
		t.Fatal(err)
	}
	ic := cfg.OCIv1.Config
	if ic.User != "65532:65532" {
		t.Errorf("image user %q, want numeric non-root 65532:65532", ic.User)
	}
	if !slices.Equal(ic.Entrypoint, []string{"/partner-admin"}) {
		t.Errorf("entrypoint %q", ic.Entrypoint)
	}
	if _, ok := ic.ExposedPorts["8080/tcp"]; !ok || !slices.Contains(ic.Env, "ADDR=0.0.0.0:8080") {
		t.Errorf("the image does not listen on 8080 on every interface: env %q, ports %v", ic.Env, ic.ExposedPorts)
	}

	// What it holds: the binary (static) and the CA bundle, nothing else.
	ctr := b.must(ctx, t, "from", "--pull=false", image)
	t.Cleanup(func() { _, _ = b.run(context.Background(), "rm", ctr) })
	root := b.must(ctx, t, "mount", ctr)
	// buildah run makes these as mount points for its own files, as a
	// kubelet mounts its own over them.
	runtimeFiles := []string{"/etc/hostname", "/etc/hosts", "/etc/resolv.conf", "/run/.containerenv"}
	onlyFiles := func(when string) {
		t.Helper()
		var files []string
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			if !slices.Contains(runtimeFiles, "/"+rel) {
				files = append(files, "/"+rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"/etc/ssl/certs/ca-certificates.crt", "/partner-admin"}; !slices.Equal(files, want) {
			t.Errorf("%s the container holds %q, want only %q", when, files, want)
		}
	}
	onlyFiles("built,")
	checkStatic(t, filepath.Join(root, "partner-admin"))

	// Run it as a replica would be: configured by environment only.
	dsn := pgtest.NewDatabase(t)
	apiURL, apiKey := startSandbox(t)
	const ownerEmail, ownerPassword = "owner@partner.example", "signed in through the image"
	env := map[string]string{
		"DATABASE_URL": dsn, "PARTNER_API_BASE_URL": apiURL, "PARTNER_API_KEY": apiKey,
		"ENCRYPTION_KEY": strings.Repeat("4d", 32), "OWNER_EMAIL": ownerEmail, "OWNER_PASSWORD": ownerPassword,
		// The chroot shares the host's network: listen on the loopback, on
		// a port of the kernel's choosing (printed on stdout).
		"ADDR": "127.0.0.1:0", "PUBLIC_ORIGIN": "http://127.0.0.1",
	}
	args := []string{"config"}
	for k, v := range env {
		args = append(args, "--env", k+"="+v)
	}
	b.must(ctx, t, append(args, ctr)...)
	addr := runContainer(t, b, ctr)
	origin := "http://" + addr
	for _, p := range []string{"/healthz", "/readyz"} {
		webtest.WaitFor(t, "200 on "+p, time.Minute, func() bool { return getStatus(origin+p) == http.StatusOK })
	}
	landing := signIn(t, origin, ownerEmail, ownerPassword)
	// It wrote nothing to its filesystem, so a read-only root does it no
	// harm (readOnlyRootFilesystem in the manifests).
	onlyFiles("having served,")
	b.must(ctx, t, "umount", ctr)
	t.Logf("signed in through the container, landing on %s; whole test %s", landing, time.Since(start).Round(time.Second))
}

// goEnv is a `go env` value.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("go env %s: %q %v", name, out, err)
	}
	return strings.TrimSpace(string(out))
}

// checkStatic fails t when the binary asks for a dynamic loader (an empty
// base has none).
func checkStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s is dynamically linked", path)
		}
	}
}

// runContainer runs the image's entrypoint in the working container ctr
// (buildah run, chroot isolation, as the image's user) until t ends, and
// returns the address it listens on, having checked that the app runs as
// the image's non-root user.
func runContainer(t *testing.T, b *buildah, ctr string) string {
	t.Helper()
	args := append(slices.Clone(b.store), "run", "--isolation", "chroot", ctr, "--", "/partner-admin")
	cmd := exec.Command(b.bin, args...)
	// Its own process group: the test ends the container's processes, and
	// only those, by the group's id.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "listening on http://"); ok {
				found <- a
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case a := <-found:
		if uid, ok := uidOf(cmd.Process.Pid, "/partner-admin"); !ok || uid != "65532" {
			t.Errorf("the app in the container runs as uid %q (found: %v), want the image's 65532", uid, ok)
		}
		return a
	case err := <-done:
		done <- err
		t.Fatalf("the container exited before listening (%v):\n%s", err, stderr)
	case <-time.After(listenTimeout):
		t.Fatalf("the container does not listen after %s:\n%s", listenTimeout, stderr)
	}
	return ""
}

// signIn signs in as a browser does: the sign-in page and its hidden
// fields, the form posted, redirects followed to a page that is not the
// sign-in page. It returns that page's path.
func signIn(t *testing.T, base, email, password string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := c.Get(base + "/login")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /login: %d %v", resp.StatusCode, err)
	}
	form := url.Values{"email": {email}, "password": {password}}
	doc.Find(`form[action="/login"] input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
		form.Set(in.AttrOr("name", ""), in.AttrOr("value", ""))
	})
	resp, err = c.PostForm(base+"/login", form)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	landing := resp.Request.URL.Path
	if resp.StatusCode != http.StatusOK || landing == "/login" {
		t.Fatalf("signing in ended on %s with %d:\n%.400s", landing, resp.StatusCode, body)
	}
	return landing
}

// uidOf is the real uid of the process named exe in process group pgid.
func uidOf(pgid int, exe string) (string, bool) {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cmdline, err := os.ReadFile(filepath.Join(p, "cmdline"))
		if err != nil || string(bytes.TrimRight(cmdline, "\x00")) != exe {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(p, "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces.
		_, rest, _ := bytes.Cut(stat, []byte(") "))
		fields := strings.Fields(string(rest))
		if len(fields) < 3 || fields[2] != fmt.Sprint(pgid) {
			continue
		}
		status, err := os.ReadFile(filepath.Join(p, "status"))
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(status)) {
			if v, ok := strings.CutPrefix(line, "Uid:"); ok {
				return strings.Fields(v)[0], true
			}
		}
	}
	return "", false
}
