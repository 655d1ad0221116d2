package fleetfile

import (
	"os"
	"strings"
	"testing"
)

// FuzzParse: fleet files written by users. No panic; a rejection is an error with a message, and
// an accepted file's node images split into a SKU and a version.
func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("../../../examples/quickstart/fleet.yaml"); err == nil {
		f.Add(b)
	}
	for _, s := range []string{"", "hub: {}", "members: [{name: a}]", "members: [{name: a, kubernetesVersion: 1.30.1, nodePools: [{name: p, nodeImage: AKSUbuntu-2204gen2containerd-202505.01.0}]}]",
		"time: 1h", "{", "members: [{name: a, karpenter: {nodePools: [{name: p, nodes: 3}]}}]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse(b)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("Parse(%q): empty error", b)
			}
			return
		}
		for _, m := range file.Members {
			for _, p := range m.NodePools {
				_ = p.ImageVersion()
				_ = p.OSSKU()
			}
		}
	})
}

// FuzzSplitNodeImage: node image versions (AKSUbuntu-2204gen2containerd-202505.01.0) from fleet
// files and the Fleet API. No panic; the parts are substrings of the input.
func FuzzSplitNodeImage(f *testing.F) {
	for _, s := range []string{"AKSUbuntu-2204gen2containerd-202505.01.0", "AKSAzureLinux-V2gen2-202505.01.0", "-", "", "a-b-c-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sku, version := SplitNodeImage(s)
		if !strings.Contains(s, sku) || !strings.Contains(s, version) {
			t.Fatalf("SplitNodeImage(%q) = %q, %q", s, sku, version)
		}
	})
}
