package deploy

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"

	"partneradmin/web"
)

// envNames are the environment variables the app reads, found in the
// source of web/config.go (every getenv("X") and def("X", …) call), with
// the Go runtime's own (goRuntimeEnv), and which of them are secrets
// (Secret(getenv("X"))).
func envNames(t testing.TB) (all, secrets map[string]bool) {
	t.Helper()
	all, secrets = map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	for _, v := range goRuntimeEnv {
		all[v] = true
	}
	for _, path := range []string{"../web/config.go"} {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		name := func(call *ast.CallExpr) string {
			fn, ok := call.Fun.(*ast.Ident)
			if !ok || (fn.Name != "getenv" && fn.Name != "def") || len(call.Args) == 0 {
				return ""
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return ""
			}
			s, _ := strconv.Unquote(lit.Value)
			return s
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if v := name(call); v != "" {
				all[v] = true
			}
			if fn, ok := call.Fun.(*ast.Ident); ok && fn.Name == "Secret" && len(call.Args) == 1 {
				if inner, ok := call.Args[0].(*ast.CallExpr); ok && name(inner) != "" {
					secrets[name(inner)] = true
				}
			}
			return true
		})
	}
	// The flag-only OIDC secret and the others are all read the same way;
	// a scan that found none has lost track of the source.
	if len(all) < 10 || !secrets["DATABASE_URL"] || !secrets["PARTNER_API_KEY"] {
		t.Fatalf("the scan of web/config.go found %d variables and secrets %v: has the way it reads them changed?", len(all), secrets)
	}
	return all, secrets
}

// goRuntimeEnv are variables the Go runtime itself reads, which a
// Deployment may set to fit the process to its container.
var goRuntimeEnv = []string{"GOMEMLIMIT", "GOGC", "GOMAXPROCS"}

// appDrainSeconds is how long cmd/partner-admin waits for requests in
// flight after SIGTERM (its shutdown context) before stopping its workers.
const appDrainSeconds = 15

// placeholders stand in for the Secret's values when the Deployment's
// environment is checked against the app's configuration rules.
var placeholders = map[string]string{
	"DATABASE_URL":     "postgres://partner_admin:pw@postgres.example:5432/partner_admin?sslmode=verify-full",
	"PARTNER_API_KEY":  "pk_live_placeholder",
	"ENCRYPTION_KEY":   strings.Repeat("ab", 32),
	"OWNER_PASSWORD":   "a placeholder password",
	"SMTP_URL":         "smtp://user:pass@mail.example:587?from=alerts@partner.example",
	"CHAT_WEBHOOK_URL": "https://hooks.slack.com/services/T000/B000/placeholder",
}

// podEnv is the container's environment as the kubelet would build it:
// the ConfigMap named in envFrom, then env (values, and each secretKeyRef
// as its placeholder), and the secret key each secret variable comes from.
func podEnv(t testing.TB, m manifests, c container) (env map[string]string, fromSecret map[string]keyRef) {
	t.Helper()
	env, fromSecret = map[string]string{}, map[string]keyRef{}
	for _, from := range c.EnvFrom {
		switch {
		case from.ConfigMapRef != nil && from.ConfigMapRef.Name == m.ConfigMap.Metadata.Name:
			for k, v := range m.ConfigMap.Data {
				env[k] = v
			}
		case from.ConfigMapRef != nil:
			t.Fatalf("envFrom names ConfigMap %q, not the one in the manifests (%q)", from.ConfigMapRef.Name, m.ConfigMap.Metadata.Name)
		case from.SecretRef != nil:
			t.Fatalf("envFrom secretRef %q: name each secret key, so that a missing one is an error at the pod's start", from.SecretRef.Name)
		}
	}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = e.Value
		case e.ValueFrom.SecretKeyRef != nil:
			ref := *e.ValueFrom.SecretKeyRef
			fromSecret[e.Name] = ref
			v, ok := placeholders[e.Name]
			if !ok {
				t.Fatalf("%s comes from a secret: give it a placeholder value in this test", e.Name)
			}
			env[e.Name] = v
		case e.ValueFrom.ConfigMapKeyRef != nil:
			ref := e.ValueFrom.ConfigMapKeyRef
			v, ok := m.ConfigMap.Data[ref.Key]
			if !ok || ref.Name != m.ConfigMap.Metadata.Name {
				t.Fatalf("%s: configMapKeyRef %s/%s is not in the ConfigMap", e.Name, ref.Name, ref.Key)
			}
			env[e.Name] = v
		default:
			t.Fatalf("%s: a valueFrom this test does not know", e.Name)
		}
	}
	return env, fromSecret
}

// productionProblems are what makes a configuration unfit for replicas of
// the app on a shared database and the real API, beyond ParseConfig's own
// errors.
func productionProblems(cfg web.Config) []string {
	var p []string
	if cfg.Local() {
		p = append(p, "no DATABASE_URL: each replica would start a private PostgreSQL in its data directory")
	}
	if cfg.UsesSandbox() {
		p = append(p, "no PARTNER_API_BASE_URL and PARTNER_API_KEY: each replica would run an in-process sandbox")
	}
	if cfg.EncryptionKey == "" {
		p = append(p, "no ENCRYPTION_KEY: each replica would generate its own, and could not open the others' sealed webhook secrets")
	}
	if cfg.OwnerEmail == "" {
		p = append(p, "no OWNER_EMAIL and OWNER_PASSWORD: the first owner's generated password would be printed to the logs")
	}
	if !cfg.SecureCookies() {
		p = append(p, "PUBLIC_ORIGIN is not https: session cookies would not be Secure")
	}
	if len(cfg.TrustedProxies) == 0 {
		p = append(p, "no TRUSTED_PROXIES: behind the ingress every client would be the ingress, for sign-in limits and the audit log")
	}
	if host, _, err := net.SplitHostPort(cfg.Addr); err == nil && (host == "127.0.0.1" || host == "localhost" || host == "::1") {
		p = append(p, "ADDR listens on the loopback only: the kubelet's probes and the Service cannot reach it")
	}
	return p
}

// TestManifests checks the Kubernetes manifests against what the app
// needs: its probes on the port it listens on, every variable it requires
// for replicas on a shared database (found by running its own
// configuration rules on the Deployment's environment, so a variable that
// becomes required fails here), secrets only from the Secret, resources,
// a locked-down security context, and the PDB and Service selecting the
// Deployment's pods.
func TestManifests(t *testing.T) {
	t.Parallel()
	m := loadManifests(t)
	d := m.Deployment
	if d.Spec.Replicas != 3 {
		t.Errorf("replicas: %d, want 3", d.Spec.Replicas)
	}
	podLabels := d.Spec.Template.Metadata.Labels
	if !selects(d.Spec.Selector.MatchLabels, podLabels) {
		t.Errorf("the Deployment's selector %v does not select its pods %v", d.Spec.Selector.MatchLabels, podLabels)
	}
	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want the app alone", len(d.Spec.Template.Spec.Containers))
	}
	c := d.Spec.Template.Spec.Containers[0]

	// Configuration: the app's own rules accept the environment and find
	// it fit for production.
	env, fromSecret := podEnv(t, m, c)
	cfg, err := web.ParseConfig([]string{"partner-admin"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatalf("the app refuses the Deployment's environment: %v", err)
	}
	for _, p := range productionProblems(cfg) {
		t.Error(p)
	}
	// Each variable set is one the app reads (no misspelling); each secret
	// one comes from the Secret, whose example lists its key.
	known, secrets := envNames(t)
	for name := range env {
		if !known[name] {
			t.Errorf("%s is set but the app does not read it (misspelt?)", name)
		}
		if ref, ok := fromSecret[name]; ok {
			if ref.Name != m.Secret.Metadata.Name {
				t.Errorf("%s comes from Secret %q; the documented Secret is %q", name, ref.Name, m.Secret.Metadata.Name)
			}
			if _, ok := m.Secret.StringData[ref.Key]; !ok {
				t.Errorf("%s: key %q is missing from secret.example.yaml", name, ref.Key)
			}
		} else if secrets[name] {
			t.Errorf("%s is a secret but is set in the manifests, not from the Secret", name)
		}
	}
	// Required: every variable without which the configuration is refused
	// or unfit is set from a required source (not an optional key).
	for name := range env {
		without := func(k string) string {
			if k == name {
				return ""
			}
			return env[k]
		}
		cfg, err := web.ParseConfig([]string{"partner-admin"}, without, io.Discard)
		required := err != nil || len(productionProblems(cfg)) > 0
		if ref, ok := fromSecret[name]; ok && required && ref.Optional {
			t.Errorf("%s is required but its secretKeyRef is optional", name)
		}
	}

	// Probes: the app's paths, on the port the app listens on.
	_, addrPort, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	port := containerPort(t, c, addrPort)
	for _, pr := range []struct {
		name, path string
		p          *probe
	}{{"readiness", "/readyz", c.ReadinessProbe}, {"liveness", "/healthz", c.LivenessProbe}} {
		if pr.p == nil || pr.p.HTTPGet == nil {
			t.Errorf("no %s probe over HTTP", pr.name)
			continue
		}
		if pr.p.HTTPGet.Path != pr.path {
			t.Errorf("%s probe on %s, want %s", pr.name, pr.p.HTTPGet.Path, pr.path)
		}
		if got := resolvePort(t, c, pr.p.HTTPGet.Port); got != port {
			t.Errorf("%s probe on port %d; the app listens on %d (ADDR %s)", pr.name, got, port, cfg.Addr)
		}
	}
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil || c.Lifecycle.PreStop.Sleep.Seconds <= 0 {
		t.Error("no preStop sleep: the image has no shell, so the drain's wait is the kubelet's sleep action")
	} else if c.Lifecycle.PreStop.Exec != nil {
		t.Error("a preStop exec: the image has no shell or sleep binary")
	} else if grace := d.Spec.Template.Spec.TerminationGracePeriodSeconds; grace < c.Lifecycle.PreStop.Sleep.Seconds+appDrainSeconds {
		t.Errorf("terminationGracePeriodSeconds %d is shorter than preStop's %ds plus the app's %ds drain", grace, c.Lifecycle.PreStop.Sleep.Seconds, appDrainSeconds)
	}

	// Resources and security.
	for _, r := range []string{"cpu", "memory"} {
		if c.Resources.Requests[r] == "" {
			t.Errorf("no %s request", r)
		}
	}
	if c.Resources.Limits["memory"] == "" {
		t.Error("no memory limit")
	}
	sc := c.SecurityContext
	psc := d.Spec.Template.Spec.SecurityContext
	switch {
	case sc == nil:
		t.Error("no container securityContext")
	case !isTrue(sc.RunAsNonRoot) && (psc == nil || !isTrue(psc.RunAsNonRoot)):
		t.Error("runAsNonRoot is not set")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("allowPrivilegeEscalation is not false")
	case !isTrue(sc.ReadOnlyRootFilesystem):
		t.Error("readOnlyRootFilesystem is not true")
	case isTrue(sc.Privileged):
		t.Error("privileged")
	case sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0:
		t.Error("capabilities: want drop ALL and none added")
	}

	// The PDB and the Service select exactly the Deployment's pods.
	if len(m.PDB.Spec.Selector.MatchLabels) == 0 || !selects(m.PDB.Spec.Selector.MatchLabels, podLabels) {
		t.Errorf("the PDB's selector %v does not select the pods %v", m.PDB.Spec.Selector.MatchLabels, podLabels)
	}
	if m.PDB.Spec.MinAvailable == nil && m.PDB.Spec.MaxUnavailable == nil {
		t.Error("the PDB sets neither minAvailable nor maxUnavailable")
	}
	if n, ok := m.PDB.Spec.MaxUnavailable.(int); ok && (n < 1 || n >= d.Spec.Replicas) {
		t.Errorf("PDB maxUnavailable %d with %d replicas", n, d.Spec.Replicas)
	}
	if len(m.Service.Spec.Selector) == 0 || !selects(m.Service.Spec.Selector, podLabels) {
		t.Errorf("the Service's selector %v does not select the pods %v", m.Service.Spec.Selector, podLabels)
	}
	if len(m.Service.Spec.Ports) != 1 {
		t.Fatalf("the Service has %d ports, want 1", len(m.Service.Spec.Ports))
	}
	if got := resolvePort(t, c, m.Service.Spec.Ports[0].TargetPort); got != port {
		t.Errorf("the Service targets port %d; the app listens on %d", got, port)
	}
}

// containerPort is the container's declared port that ADDR's port is; it
// fails t when the container does not declare it.
func containerPort(t *testing.T, c container, addrPort string) int {
	t.Helper()
	for _, p := range c.Ports {
		if strconv.Itoa(p.ContainerPort) == addrPort {
			return p.ContainerPort
		}
	}
	t.Fatalf("the app listens on port %s, which the container does not declare (%v)", addrPort, c.Ports)
	return 0
}

// resolvePort turns a probe's or Service's port (a number or the name of
// one of the container's ports) into a number.
func resolvePort(t *testing.T, c container, port any) int {
	t.Helper()
	switch p := port.(type) {
	case int:
		return p
	case string:
		for _, cp := range c.Ports {
			if cp.Name == p {
				return cp.ContainerPort
			}
		}
		if n, err := strconv.Atoi(p); err == nil {
			return n
		}
	}
	t.Errorf("port %v is not one of the container's", port)
	return -1
}

func selects(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func isTrue(b *bool) bool { return b != nil && *b }

// TestManifestsTestFails: the checks above refuse a Deployment with a
// required variable, a probe or the security context gone (a test that
// cannot fail is a defect).
func TestManifestsTestFails(t *testing.T) {
	t.Parallel()
	m := loadManifests(t)
	c := m.Deployment.Spec.Template.Spec.Containers[0]
	env, _ := podEnv(t, m, c)
	for _, name := range []string{"DATABASE_URL", "PARTNER_API_KEY", "ENCRYPTION_KEY", "TRUSTED_PROXIES", "PUBLIC_ORIGIN", "ADDR"} {
		without := func(k string) string {
			if k == name {
				return ""
			}
			return env[k]
		}
		cfg, err := web.ParseConfig([]string{"partner-admin"}, without, io.Discard)
		if err == nil && len(productionProblems(cfg)) == 0 {
			t.Errorf("without %s the environment still passes", name)
		}
	}
	if got := fmt.Sprint(productionProblems(web.Config{Addr: "127.0.0.1:8080"})); !strings.Contains(got, "loopback") {
		t.Errorf("a loopback ADDR passes: %s", got)
	}
}
