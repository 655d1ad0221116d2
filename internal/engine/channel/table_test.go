package channel

import (
	"reflect"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
)

var (
	official = armcontainerservice.KubernetesSupportPlanKubernetesOfficial
	lts      = armcontainerservice.KubernetesSupportPlanAKSLongTermSupport
)

// aksEntry is one ListKubernetesVersions value as AKS returns it.
func aksEntry(minor string, preview, def bool, plans []armcontainerservice.KubernetesSupportPlan, patches ...string) *armcontainerservice.KubernetesVersion {
	kv := &armcontainerservice.KubernetesVersion{
		Version: to.Ptr(minor), IsPreview: to.Ptr(preview), IsDefault: to.Ptr(def),
		PatchVersions: map[string]*armcontainerservice.KubernetesPatchVersion{},
		Capabilities:  &armcontainerservice.KubernetesVersionCapabilities{},
	}
	for _, p := range plans {
		kv.Capabilities.SupportPlan = append(kv.Capabilities.SupportPlan, to.Ptr(p))
	}
	for _, p := range patches {
		kv.PatchVersions[p] = &armcontainerservice.KubernetesPatchVersion{Upgrades: []*string{}}
	}
	return kv
}

func mustTable(t *testing.T, values ...*armcontainerservice.KubernetesVersion) VersionTable {
	t.Helper()
	tab, err := TableFromAKS(values)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func v(s string) Version {
	out, err := ParseVersion(s)
	if err != nil {
		panic(err)
	}
	return out
}

func TestTableFromAKS(t *testing.T) {
	// Out of order, as a map-backed JSON list may come: the table sorts minors
	// and patches, a GA entry before a preview entry of the same minor.
	tab := mustTable(t,
		aksEntry("1.34", true, false, []armcontainerservice.KubernetesSupportPlan{official}, "1.34.0"),
		nil,
		aksEntry("1.33", false, false, []armcontainerservice.KubernetesSupportPlan{official, lts}, "1.33.1", "1.33.0"),
		aksEntry("1.33", true, false, nil, "1.33.2"),
		aksEntry("1.32", false, true, []armcontainerservice.KubernetesSupportPlan{official, lts}, "1.32.5", "1.32.10", "1.32.4"),
	)
	want := []MinorVersion{
		{Minor: v("1.32.0"), Default: true, SupportPlans: []armcontainerservice.KubernetesSupportPlan{official, lts}, Patches: []Version{v("1.32.4"), v("1.32.5"), v("1.32.10")}},
		{Minor: v("1.33.0"), SupportPlans: []armcontainerservice.KubernetesSupportPlan{official, lts}, Patches: []Version{v("1.33.0"), v("1.33.1")}},
		{Minor: v("1.33.0"), Preview: true, Patches: []Version{v("1.33.2")}},
		{Minor: v("1.34.0"), Preview: true, SupportPlans: []armcontainerservice.KubernetesSupportPlan{official}, Patches: []Version{v("1.34.0")}},
	}
	if !reflect.DeepEqual(tab.Minors, want) {
		t.Errorf("Minors\n got %+v\nwant %+v", tab.Minors, want)
	}
	if d, ok := tab.DefaultVersion(); !ok || d != v("1.32.10") {
		t.Errorf("DefaultVersion = %v, %v; want the default minor's latest patch 1.32.10", d, ok)
	}
	if !tab.Minors[0].LongTermSupport() || tab.Minors[3].LongTermSupport() {
		t.Errorf("LongTermSupport: 1.32 lists AKSLongTermSupport, 1.34 does not")
	}

	for _, tc := range []struct {
		name  string
		entry *armcontainerservice.KubernetesVersion
		want  string
	}{
		{"no version", &armcontainerservice.KubernetesVersion{}, "without its version"},
		{"patch as minor", aksEntry("1.33.1", false, false, nil), "not a Kubernetes minor version"},
		{"bad patch", aksEntry("1.33", false, false, nil, "1.33.x"), "not a Kubernetes version"},
		{"patch of another minor", aksEntry("1.33", false, false, nil, "1.32.5"), "patch 1.32.5 under minor 1.33"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TableFromAKS([]*armcontainerservice.KubernetesVersion{tc.entry})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestSupportWindow(t *testing.T) {
	tab := mustTable(t,
		aksEntry("1.30", false, false, []armcontainerservice.KubernetesSupportPlan{official}, "1.30.14"),
		aksEntry("1.31", false, false, nil, "1.31.9"),
		aksEntry("1.33", false, false, nil, "1.33.1"),
		aksEntry("1.34", true, false, nil, "1.34.0"),
	)
	// N is the newest GA minor (1.33; 1.34 is a preview); the window is N-2..N
	// by minor number even though 1.32 is not listed; 1.30 (N-3) is outside.
	oldest, newest, ok := tab.SupportWindow()
	if !ok || oldest != v("1.31.0") || newest != v("1.33.0") {
		t.Errorf("SupportWindow = %v, %v, %v; want 1.31.0, 1.33.0, true", oldest, newest, ok)
	}
	if got := tab.SupportedMinors(); !reflect.DeepEqual(got, []Version{v("1.31.0"), v("1.32.0"), v("1.33.0")}) {
		t.Errorf("SupportedMinors = %v", got)
	}
	if tab.inWindow(v("1.30.14")) || !tab.inWindow(v("1.32.0")) {
		t.Error("inWindow: 1.30 is N-3 (outside), 1.32 is N-1 (inside)")
	}
	if _, _, ok := mustTable(t, aksEntry("1.34", true, false, nil, "1.34.0")).SupportWindow(); ok {
		t.Error("a table of previews only has no support window")
	}
	// Across a major version: 2.0's window reaches back into 1.x.
	if oldest, _, _ := mustTable(t, aksEntry("2.0", false, false, nil, "2.0.1")).SupportWindow(); oldest != v("1.98.0") {
		t.Errorf("window of 2.0 starts at %v, want 1.98.0", oldest)
	}
}

func TestUnion(t *testing.T) {
	east := mustTable(t,
		aksEntry("1.33", false, false, []armcontainerservice.KubernetesSupportPlan{official}, "1.33.1", "1.33.2"),
		aksEntry("1.34", false, false, nil, "1.34.1"),
	)
	east.AddNodeImage("AKSUbuntu-2204gen2containerd-202511.04.0")
	west := mustTable(t,
		aksEntry("1.33", false, true, []armcontainerservice.KubernetesSupportPlan{lts}, "1.33.1"),
		aksEntry("1.34", true, false, nil, "1.34.1"),
	)
	west.AddNodeImage("AKSUbuntu-2204gen2containerd-202510.01.0")
	west.AddNodeImage("AKSWindows-2022-containerd-20348.2582.240716")

	u := Union(east, west)
	want := []MinorVersion{
		{Minor: v("1.33.0"), Default: true, SupportPlans: []armcontainerservice.KubernetesSupportPlan{official, lts}, Patches: []Version{v("1.33.1"), v("1.33.2")}},
		{Minor: v("1.34.0"), Patches: []Version{v("1.34.1")}},
		{Minor: v("1.34.0"), Preview: true, Patches: []Version{v("1.34.1")}},
	}
	if !reflect.DeepEqual(u.Minors, want) {
		t.Errorf("Minors\n got %+v\nwant %+v", u.Minors, want)
	}
	// GA somewhere wins: 1.34.1 is GA in eastus, so the union offers it as GA.
	if listed, preview := u.offers(v("1.34.1")); !listed || preview {
		t.Errorf("offers(1.34.1) = %v, %v; want listed, not preview-only", listed, preview)
	}
	wantImages := map[string][]string{
		"AKSUbuntu-2204gen2containerd": {"202511.04.0", "202510.01.0"},
		"AKSWindows-2022-containerd":   {"20348.2582.240716"},
	}
	if !reflect.DeepEqual(u.NodeImages, wantImages) {
		t.Errorf("NodeImages = %v, want %v", u.NodeImages, wantImages)
	}
}

func TestNodeImages(t *testing.T) {
	var tab VersionTable
	for _, full := range []string{
		"AKSUbuntu-2204gen2containerd-202510.9.0",
		"AKSUbuntu-2204gen2containerd-202510.10.0", // numerically newer, lexically older
		"AKSUbuntu-2204gen2containerd-202510.10.0", // duplicate
		"AKSWindows-2022-containerd-20348.2582.240916",
		"AKSWindows-2022-containerd-20348.2582.240716",
		"noversion", // not "<image type>-<version>": ignored
	} {
		tab.AddNodeImage(full)
	}
	if n := len(tab.NodeImages["AKSUbuntu-2204gen2containerd"]); n != 2 {
		t.Errorf("AddNodeImage kept %d Ubuntu versions, want 2 (deduplicated)", n)
	}
	want := map[string]string{"AKSUbuntu-2204gen2containerd": "202510.10.0", "AKSWindows-2022-containerd": "20348.2582.240916"}
	if got := tab.LatestNodeImages(); !reflect.DeepEqual(got, want) {
		t.Errorf("LatestNodeImages = %v, want %v", got, want)
	}
}

func TestParseVersion(t *testing.T) {
	for _, s := range []string{"1.33", "1.33.1.2", "1.x.1", "1..1", "+1.33.1", "-1.33.1", ""} {
		if _, err := ParseVersion(s); err == nil {
			t.Errorf("ParseVersion(%q) accepted", s)
		}
	}
	if got, err := ParseVersion("v1.33.10"); err != nil || got != (Version{Major: 1, Minor: 33, Patch: 10}) || got.String() != "1.33.10" || got.MinorString() != "1.33" {
		t.Errorf("ParseVersion(v1.33.10) = %v, %v", got, err)
	}
	for _, s := range []string{"1.33.0", "1", "1.a"} {
		if _, err := ParseMinor(s); err == nil {
			t.Errorf("ParseMinor(%q) accepted", s)
		}
	}
	if v("1.33.10").Compare(v("1.33.9")) != 1 || v("1.9.0").Compare(v("1.10.0")) != -1 || v("2.0.0").Compare(v("1.99.99")) != 1 {
		t.Error("Compare orders numerically by major, minor, patch")
	}
}
