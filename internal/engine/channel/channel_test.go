package channel

import (
	"reflect"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
)

const (
	ubuntu = "AKSUbuntu-2204gen2containerd"
	win    = "AKSWindows-2022-containerd"
)

// eastus is the acceptance fleet's region plus the rest of a real AKS list:
// an N-3 minor in platform support, an LTS-only minor, two patches of N-1, a
// preview minor above N and a preview patch of N.
func eastus(t *testing.T) VersionTable {
	plans := []armcontainerservice.KubernetesSupportPlan{official, lts}
	tab := mustTable(t,
		aksEntry("1.29", false, false, []armcontainerservice.KubernetesSupportPlan{lts}, "1.29.8", "1.29.9"),
		aksEntry("1.30", false, false, []armcontainerservice.KubernetesSupportPlan{official}, "1.30.14"),
		aksEntry("1.31", false, false, plans, "1.31.9"),
		aksEntry("1.32", false, true, plans, "1.32.4", "1.32.5"),
		aksEntry("1.33", false, false, plans, "1.33.0", "1.33.1"),
		aksEntry("1.33", true, false, nil, "1.33.2"),
		aksEntry("1.34", true, false, nil, "1.34.0"),
	)
	tab.AddNodeImage(ubuntu + "-202510.01.0")
	tab.AddNodeImage(ubuntu + "-202511.04.0")
	tab.AddNodeImage(win + "-20348.2582.240916")
	return tab
}

func TestResolve(t *testing.T) {
	tests := []struct {
		name    string
		channel Channel
		opts    Options
		table   func(*testing.T) VersionTable
		want    string // the target Kubernetes version
		wantErr string
	}{
		// concepts-update-orchestration.md "Stable channel": N-1's latest patch.
		{name: "stable is the latest GA patch of N-1", channel: Stable, table: eastus, want: "1.32.5"},
		// "Rapid channel": N's latest patch; the preview patch 1.33.2 and the
		// preview minor 1.34 are never targets.
		{name: "rapid is the latest GA patch of N, never a preview", channel: Rapid, table: eastus, want: "1.33.1"},
		{name: "rapid moves when a new minor is GA", channel: Rapid, table: func(t *testing.T) VersionTable {
			return Union(eastus(t), mustTable(t, aksEntry("1.34", false, false, nil, "1.34.1")))
		}, want: "1.34.1"},
		{name: "stable follows N: 1.33 once 1.34 is GA", channel: Stable, table: func(t *testing.T) VersionTable {
			return Union(eastus(t), mustTable(t, aksEntry("1.34", false, false, nil, "1.34.1")))
		}, want: "1.33.1"},
		{name: "stable needs N-1", channel: Stable, table: func(t *testing.T) VersionTable {
			return mustTable(t, aksEntry("1.33", false, false, nil, "1.33.1"), aksEntry("1.34", true, false, nil, "1.34.0"))
		}, wantErr: "minor 1.32, which AKS does not offer as generally available"},
		{name: "previews only: nothing to resolve", channel: Rapid, table: func(t *testing.T) VersionTable {
			return mustTable(t, aksEntry("1.34", true, false, nil, "1.34.0"))
		}, wantErr: "no generally available Kubernetes version"},

		// "TargetKubernetesVersion channel": the latest patch of the given minor.
		{name: "target minor's latest patch", channel: TargetKubernetesVersion, opts: Options{TargetKubernetesVersion: "1.32"}, table: eastus, want: "1.32.5"},
		{name: "target N-2 is in the window", channel: TargetKubernetesVersion, opts: Options{TargetKubernetesVersion: "1.31"}, table: eastus, want: "1.31.9"},
		{name: "target with LTS inside the window", channel: TargetKubernetesVersion, opts: Options{TargetKubernetesVersion: "1.31", LongTermSupport: true}, table: eastus, want: "1.31.9"},
		// update-automation.md: LTS allows "minor versions available only for AKS long term support".
		{name: "target an LTS-only minor with LTS", channel: TargetKubernetesVersion, opts: Options{TargetKubernetesVersion: "1.29", LongTermSupport: true}, table: eastus, want: "1.29.9"},
		{name: "an LTS-only minor needs LTS", channel: TargetKubernetesVersion, opts: Options{TargetKubernetesVersion: "1.29"}, table: eastus,
			wantErr: "1.29 is outside the AKS support window (1.31 to 1.33): set long-term support"},
		{name: "N-3 in platform support is no target, even with LTS", channel: TargetKubernetesVersion, opts: Options{TargetKubernetesVersion: "1.30", LongTermSupport: true}, table: eastus,
			wantErr: "AKS does not offer it under long-term support"},
		{name: "a preview-only minor is no target", channel: TargetKubernetesVersion, opts: Options{TargetKubernetesVersion: "1.34"}, table: eastus,
			wantErr: "1.34 is only in preview"},
		// update-automation.md: "You can't set the target Kubernetes version to a future Kubernetes version that AKS hasn't released."
		{name: "an unreleased minor is no target", channel: TargetKubernetesVersion, opts: Options{TargetKubernetesVersion: "1.35"}, table: eastus,
			wantErr: "does not offer Kubernetes 1.35"},
		{name: "target is major.minor", channel: TargetKubernetesVersion, opts: Options{TargetKubernetesVersion: "1.32.5"}, table: eastus,
			wantErr: "not a Kubernetes minor version"},
		{name: "target channel needs a target", channel: TargetKubernetesVersion, table: eastus, wantErr: "needs a target Kubernetes version"},

		// autoupgradeprofile.tsp: the options belong to TargetKubernetesVersion only.
		{name: "target with another channel", channel: Stable, opts: Options{TargetKubernetesVersion: "1.32"}, table: eastus, wantErr: "only for the TargetKubernetesVersion channel"},
		{name: "LTS with another channel", channel: Rapid, opts: Options{LongTermSupport: true}, table: eastus, wantErr: "long-term support is only for"},
		{name: "unknown channel", channel: "SecurityPatch", table: eastus, wantErr: `channel "SecurityPatch" is not one of`},
		{name: "node image without images", channel: NodeImage, table: func(t *testing.T) VersionTable {
			return mustTable(t, aksEntry("1.33", false, false, nil, "1.33.1"))
		}, wantErr: "no node image versions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve(tc.channel, tc.opts, tc.table(t))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q (target %+v)", err, tc.wantErr, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.KubernetesVersion != tc.want || got.Channel != tc.channel || got.LongTermSupport != tc.opts.LongTermSupport {
				t.Errorf("Resolve = %+v, want version %s", got, tc.want)
			}
		})
	}
}

// "NodeImage channel": the newest image of each pool's OS image type.
func TestResolveNodeImage(t *testing.T) {
	got, err := Resolve(NodeImage, Options{}, eastus(t))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ubuntu: "202511.04.0", win: "20348.2582.240916"}
	if got.KubernetesVersion != "" || !reflect.DeepEqual(got.NodeImages, want) {
		t.Errorf("Resolve(NodeImage) = %+v, want node images %v and no Kubernetes version", got, want)
	}
}
