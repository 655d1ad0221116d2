package kube

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzFromKubeconfig: kubeconfigs from users (FLEET_HUB_CONFIG_PATH, attributes) and the Fleet
// API's credentials. No panic; a rejection is an error with a message, an accepted one has a host.
func FuzzFromKubeconfig(f *testing.F) {
	for _, s := range []string{
		"apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: https://127.0.0.1:6443, insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n",
		"apiVersion: v1\nkind: Config\nclusters: []\n", "", "{", "current-context: missing",
		"apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: https://h, certificate-authority-data: Zm9v}\nusers:\n- name: u\n  user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: kubelogin}}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg, err := FromKubeconfig(b)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("FromKubeconfig(%q): empty error", b)
			}
			return
		}
		if cfg == nil || cfg.Host == "" {
			t.Fatalf("FromKubeconfig(%q) = %+v: accepted without a host", b, cfg)
		}
	})
}

// FuzzDecodePDBPage: PodDisruptionBudget list pages from member API servers. No panic; a body that
// is a list yields one decoded or malformed entry per item, every malformed one named.
func FuzzDecodePDBPage(f *testing.F) {
	for _, s := range []string{
		`{"metadata":{"continue":"x"},"items":[{"metadata":{"namespace":"a","name":"b"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"w"}}},"status":{"disruptionsAllowed":0}}]}`,
		`{"items":[{"metadata":{"name":7}},"x",{"spec":{"maxUnavailable":{"a":1}}}]}`, `[]`, `{}`, `{"items":null}`, ``,
		`{"items":[{"spec":{"unhealthyPodEvictionPolicy":"AlwaysAllow","selector":{"matchExpressions":[{"key":"k","operator":"Near"}]}}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var out PDBs
		if _, err := DecodePDBPage(b, &out); err != nil {
			return
		}
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(b, &list); err == nil && len(out.Items)+len(out.Malformed) != len(list.Items) {
			t.Fatalf("DecodePDBPage(%q): %d items, %d decoded and %d malformed", b, len(list.Items), len(out.Items), len(out.Malformed))
		}
		for _, m := range out.Malformed {
			if m.Name == "" {
				t.Fatalf("DecodePDBPage(%q): a malformed item without a name", b)
			}
		}
	})
}
