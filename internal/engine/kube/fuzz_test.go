package kube

import (
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
