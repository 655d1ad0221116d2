package emulator_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
)

// releaseFleet: eastus offers 1.32.5 and 1.33.1 and has no scheduled release.
func releaseFleet() string {
	return `fleet: {name: demo, subscriptionId: 00000000-0000-0000-0000-000000000001, resourceGroup: rg-fleet, location: eastus}
clock: {start: "2026-11-23T00:00:00Z", speed: 1}
regions:
  eastus:
    kubernetesVersions: ["1.32.5", "1.33.1"]
    nodeImages: {AKSUbuntu-2204gen2containerd: ["202509.01.0"]}
members:
` + member("canary-1", "canary", "eastus", "") + member("prod-1", "prod", "eastus", "")
}

// postRelease POSTs body to /_emulator/releases and returns the status and body.
func postRelease(t *testing.T, u *updates, body string) (int, []byte) {
	t.Helper()
	resp, err := u.httpClient(t, false).Post(u.srv.URL()+"/_emulator/releases", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// patchVersions lists the patch versions locations/eastus/kubernetesVersions answers.
func patchVersions(t *testing.T, u *updates) []string {
	t.Helper()
	resp, b := u.do(t, http.MethodGet, "/subscriptions/"+u.sub+"/providers/Microsoft.ContainerService/locations/eastus/kubernetesVersions?api-version=2025-10-01")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("kubernetesVersions: %d %s", resp.StatusCode, b)
	}
	var list armcontainerservice.KubernetesVersionListResult
	decode(t, b, &list)
	var out []string
	for _, v := range list.Values {
		for p := range v.PatchVersions {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// TestReleaseAdmin: POST /_emulator/releases makes a version available from
// the current simulated time on, and a profile whose channel target changes
// triggers at that instant; one whose target does not change does not.
func TestReleaseAdmin(t *testing.T) {
	u := newUpdates(t, releaseFleet(), 0)
	u.mustProfile(t, "target", fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannelTargetKubernetesVersion, TargetKubernetesVersion: "1.33"}, nil)
	u.mustProfile(t, "stable", fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannelStable}, nil)
	u.mustProfile(t, "images", fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannelNodeImage}, nil)

	u.advance(time.Hour)
	if got := fmt.Sprint(patchVersions(t, u)); got != "[1.32.5 1.33.1]" {
		t.Fatalf("versions before the release: %s", got)
	}
	if names := runNames(t, u); len(names) != 0 {
		t.Fatalf("runs before the release: %v", names)
	}

	// Invalid requests change nothing.
	for _, body := range []string{
		`{"region": "westus", "kubernetesVersion": "1.33.2"}`,
		`{"region": "eastus"}`,
		`{"region": "eastus", "kubernetesVersion": "1.33"}`,
		`{"region": "eastus", "kubernetesVersion": "1.33.2", "nodeImage": "` + ubuntu + `-202510.01.0"}`,
		`{"region": "eastus", "kubernetesVersion": "1.33.2", "unknown": 1}`,
	} {
		if code, b := postRelease(t, u, body); code != http.StatusBadRequest {
			t.Fatalf("POST %s: %d %s, want 400", body, code, b)
		} else {
			armError(t, b)
		}
	}

	// Released at 01:00 (the region is matched as ARM matches locations).
	code, b := postRelease(t, u, `{"region": "East US", "kubernetesVersion": "1.33.2"}`)
	var st emulator.ReleaseStatus
	decode(t, b, &st)
	if want := t0.Add(time.Hour); code != http.StatusCreated || st.Region != "eastus" || st.KubernetesVersion != "1.33.2" || !st.At.Equal(want) {
		t.Fatalf("POST: %d %s, want 201 at %s", code, b, want)
	}
	if got := fmt.Sprint(patchVersions(t, u)); got != "[1.32.5 1.33.1 1.33.2]" {
		t.Fatalf("versions after the release: %s", got)
	}
	// The trigger happened within the POST, at the release's instant.
	ps := u.profile(t, "target").Properties.AutoUpgradeProfileStatus
	if ps == nil || ps.LastTriggerStatus != fleetapi.AutoUpgradeTriggerSucceeded || fmt.Sprint(ps.LastTriggerUpgradeVersions) != "[1.33.2]" ||
		ps.LastTriggeredAt == nil || !ps.LastTriggeredAt.Equal(st.At) {
		t.Fatalf("target profile status %+v", ps)
	}
	if ps := u.profile(t, "stable").Properties.AutoUpgradeProfileStatus; ps != nil {
		t.Fatalf("the Stable profile (still 1.32.5) triggered: %+v", ps)
	}
	if names := runNames(t, u); fmt.Sprint(names) != "[target-1-33-2]" {
		t.Fatalf("runs after the release: %v", names)
	}
	if s := runState(u.get(t, "target-1-33-2")); s == fleetapi.UpdateStateNotStarted {
		t.Fatalf("triggered run %s", s)
	}
	u.advance(2 * time.Hour)
	if s := runState(u.get(t, "target-1-33-2")); s != fleetapi.UpdateStateCompleted {
		t.Fatalf("triggered run %s after 2h", s)
	}
	u.clusterAt(t, "prod-1", "1.33.2", "202509.01.0")

	// A node image release triggers the NodeImage profile.
	if code, b := postRelease(t, u, `{"region": "eastus", "nodeImage": "`+ubuntu+`-202510.01.0"}`); code != http.StatusCreated {
		t.Fatalf("POST node image: %d %s", code, b)
	}
	img := u.profile(t, "images").Properties.AutoUpgradeProfileStatus
	if img == nil || img.LastTriggerStatus != fleetapi.AutoUpgradeTriggerSucceeded || fmt.Sprint(img.LastTriggerUpgradeVersions) != "["+ubuntu+"-202510.01.0]" {
		t.Fatalf("node image profile status %+v", img)
	}

	// GET lists both releases.
	resp, err := u.httpClient(t, false).Get(u.srv.URL() + "/_emulator/releases")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Value []emulator.ReleaseStatus `json:"value"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Value) != 2 || list.Value[0].KubernetesVersion != "1.33.2" || list.Value[1].NodeImage != ubuntu+"-202510.01.0" {
		t.Fatalf("GET: %d %+v %v", resp.StatusCode, list, err)
	}
}
