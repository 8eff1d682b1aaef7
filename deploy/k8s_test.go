package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The parts of the Kubernetes objects the tests look at, in the API's own
// field names. Other fields are ignored; a misspelled one the tests need
// decodes as missing, which the assertions catch.

type objectMeta struct {
	Name   string            `yaml:"name"`
	Labels map[string]string `yaml:"labels"`
}

type labelSelector struct {
	MatchLabels map[string]string `yaml:"matchLabels"`
}

type httpGet struct {
	Path string `yaml:"path"`
	Port any    `yaml:"port"` // a number or a port's name
}

type probe struct {
	HTTPGet          *httpGet `yaml:"httpGet"`
	PeriodSeconds    int      `yaml:"periodSeconds"`
	FailureThreshold int      `yaml:"failureThreshold"`
}

type keyRef struct {
	Name     string `yaml:"name"`
	Key      string `yaml:"key"`
	Optional bool   `yaml:"optional"`
}

type envVar struct {
	Name      string `yaml:"name"`
	Value     string `yaml:"value"`
	ValueFrom *struct {
		SecretKeyRef    *keyRef `yaml:"secretKeyRef"`
		ConfigMapKeyRef *keyRef `yaml:"configMapKeyRef"`
	} `yaml:"valueFrom"`
}

type container struct {
	Name  string `yaml:"name"`
	Image string `yaml:"image"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	Env     []envVar `yaml:"env"`
	EnvFrom []struct {
		ConfigMapRef *struct {
			Name string `yaml:"name"`
		} `yaml:"configMapRef"`
		SecretRef *struct {
			Name string `yaml:"name"`
		} `yaml:"secretRef"`
	} `yaml:"envFrom"`
	ReadinessProbe *probe `yaml:"readinessProbe"`
	LivenessProbe  *probe `yaml:"livenessProbe"`
	StartupProbe   *probe `yaml:"startupProbe"`
	Lifecycle      *struct {
		PreStop *struct {
			Sleep *struct {
				Seconds int `yaml:"seconds"`
			} `yaml:"sleep"`
			Exec *struct {
				Command []string `yaml:"command"`
			} `yaml:"exec"`
		} `yaml:"preStop"`
	} `yaml:"lifecycle"`
	Resources struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	SecurityContext *struct {
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
		Privileged               *bool `yaml:"privileged"`
		RunAsNonRoot             *bool `yaml:"runAsNonRoot"`
		Capabilities             *struct {
			Drop []string `yaml:"drop"`
			Add  []string `yaml:"add"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
}

type deployment struct {
	Metadata objectMeta `yaml:"metadata"`
	Spec     struct {
		Replicas int           `yaml:"replicas"`
		Selector labelSelector `yaml:"selector"`
		Template struct {
			Metadata objectMeta `yaml:"metadata"`
			Spec     struct {
				TerminationGracePeriodSeconds int `yaml:"terminationGracePeriodSeconds"`
				SecurityContext               *struct {
					RunAsNonRoot *bool `yaml:"runAsNonRoot"`
					RunAsUser    *int  `yaml:"runAsUser"`
				} `yaml:"securityContext"`
				Containers []container `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type service struct {
	Metadata objectMeta `yaml:"metadata"`
	Spec     struct {
		Selector map[string]string `yaml:"selector"`
		Ports    []struct {
			Name       string `yaml:"name"`
			Port       int    `yaml:"port"`
			TargetPort any    `yaml:"targetPort"`
		} `yaml:"ports"`
	} `yaml:"spec"`
}

type podDisruptionBudget struct {
	Metadata objectMeta `yaml:"metadata"`
	Spec     struct {
		Selector       labelSelector `yaml:"selector"`
		MinAvailable   any           `yaml:"minAvailable"`
		MaxUnavailable any           `yaml:"maxUnavailable"`
	} `yaml:"spec"`
}

type configMap struct {
	Metadata objectMeta        `yaml:"metadata"`
	Data     map[string]string `yaml:"data"`
}

type secret struct {
	Metadata   objectMeta        `yaml:"metadata"`
	StringData map[string]string `yaml:"stringData"`
}

// manifests are the objects kustomization.yaml lists, by kind (one of each
// kind is all the app has).
type manifests struct {
	Deployment deployment
	Service    service
	PDB        podDisruptionBudget
	ConfigMap  configMap
	// Secret is secret.example.yaml, the shape of the Secret the
	// Deployment names (not applied: operators create the real one).
	Secret secret
}

const manifestDir = "kubernetes"

// loadManifests reads the kustomization's resources.
func loadManifests(t testing.TB) manifests {
	t.Helper()
	var k struct {
		Resources []string `yaml:"resources"`
	}
	decodeFile(t, filepath.Join(manifestDir, "kustomization.yaml"), func(d *yaml.Decoder) error { return d.Decode(&k) })
	var m manifests
	seen := map[string]string{}
	for _, r := range k.Resources {
		path := filepath.Join(manifestDir, r)
		decodeFile(t, path, func(d *yaml.Decoder) error {
			for {
				var node yaml.Node
				if err := d.Decode(&node); errors.Is(err, io.EOF) {
					return nil
				} else if err != nil {
					return err
				}
				var head struct {
					APIVersion string `yaml:"apiVersion"`
					Kind       string `yaml:"kind"`
				}
				if err := node.Decode(&head); err != nil {
					return err
				}
				if prev, ok := seen[head.Kind]; ok {
					return fmt.Errorf("a second %s (the first in %s)", head.Kind, prev)
				}
				seen[head.Kind] = path
				var dst any
				switch head.APIVersion + " " + head.Kind {
				case "apps/v1 Deployment":
					dst = &m.Deployment
				case "v1 Service":
					dst = &m.Service
				case "policy/v1 PodDisruptionBudget":
					dst = &m.PDB
				case "v1 ConfigMap":
					dst = &m.ConfigMap
				default:
					return fmt.Errorf("unexpected %s %s", head.APIVersion, head.Kind)
				}
				if err := node.Decode(dst); err != nil {
					return fmt.Errorf("%s: %w", head.Kind, err)
				}
			}
		})
	}
	for _, kind := range []string{"Deployment", "Service", "PodDisruptionBudget", "ConfigMap"} {
		if seen[kind] == "" {
			t.Fatalf("kustomization.yaml lists no %s", kind)
		}
	}
	decodeFile(t, filepath.Join(manifestDir, "secret.example.yaml"), func(d *yaml.Decoder) error { return d.Decode(&m.Secret) })
	return m
}

func decodeFile(t testing.TB, path string, decode func(*yaml.Decoder) error) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := yaml.NewDecoder(bytes.NewReader(b))
	if err := decode(d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
