package fleetapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

// TestManagedNamespaceExamplesParse: the stable examples' response bodies
// strict-decode into FleetManagedNamespace and re-encode unchanged.
func TestManagedNamespaceExamplesParse(t *testing.T) {
	dir := specDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "stable/2026-06-01/examples/FleetManagedNamespaces_*.json"))
	if err != nil || len(files) < 3 {
		t.Fatalf("managed namespace examples: %v %v", files, err)
	}
	bodies := 0
	for _, f := range files {
		ex := readExample(t, f)
		for code, r := range ex.Responses {
			if len(r.Body) == 0 || string(r.Body) == "null" {
				continue
			}
			var ns FleetManagedNamespace
			if err := strictDecode(r.Body, &ns); err != nil {
				t.Errorf("%s %s: %v", filepath.Base(f), code, err)
				continue
			}
			out, _ := json.Marshal(ns)
			if got, want := jsonValue(t, out), jsonValue(t, r.Body); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: re-encoded model differs\n got: %s\nwant: %s", filepath.Base(f), code, out, r.Body)
			}
			bodies++
		}
	}
	if bodies < 2 {
		t.Errorf("decoded only %d bodies", bodies)
	}
}

// TestManagedNamespacePolicyRoundTrip: the example's policy converts to
// KubeFleet's PlacementPolicy and back without losing a field, so the
// scheduler sees what ARM was sent.
func TestManagedNamespacePolicyRoundTrip(t *testing.T) {
	ex := readExample(t, filepath.Join(specDir(t), "stable/2026-06-01/examples/FleetManagedNamespaces_Get.json"))
	var ns FleetManagedNamespace
	if err := json.Unmarshal(ex.Responses["200"].Body, &ns); err != nil {
		t.Fatal(err)
	}
	p := ns.Properties.PropagationPolicy.PlacementProfile.DefaultClusterResourcePlacement.Policy
	kf := p.ToKubeFleet()
	terms := kf.Affinity.ClusterAffinity.RequiredDuringSchedulingIgnoredDuringExecution.ClusterSelectorTerms
	if len(terms) != 1 || terms[0].LabelSelector.MatchLabels["gpu"] != "true" ||
		string(terms[0].PropertySelector.MatchExpressions[0].Operator) != "Gt" || len(kf.Tolerations) != 1 {
		t.Fatalf("converted policy %+v", kf)
	}
	if back := PlacementPolicyFromKubeFleet(kf); !reflect.DeepEqual(back, p) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, p)
	}
	if (*PlacementPolicy)(nil).ToKubeFleet() != nil || PlacementPolicyFromKubeFleet(nil) != nil {
		t.Error("nil policy did not stay nil")
	}
}

// TestClientManagedNamespaceLifecycle: a PUT is sent with only the writable
// fields and its precondition, followed through Azure-AsyncOperation to the
// final GET; a DELETE's 202 is followed through its Location to 204 (the
// spec's final-state-via location).
func TestClientManagedNamespaceLifecycle(t *testing.T) {
	ex := readExample(t, filepath.Join(specDir(t), "stable/2026-06-01/examples/FleetManagedNamespaces_Get.json"))
	var read FleetManagedNamespace
	if err := json.Unmarshal(ex.Responses["200"].Body, &read); err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("n", ManagedNamespaceNameMax)
	item := "/subscriptions/sub1/resourceGroups/rg1/providers/Microsoft.ContainerService/fleets/fleet1/managedNamespaces/" + name
	op := "/subscriptions/sub1/providers/Microsoft.ContainerService/locations/eastus/operations/"
	var base string
	var polls atomic.Int32
	var sent map[string]any
	var ifNoneMatch string
	c, srv := testServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPut && r.URL.Path == item:
			b, _ := io.ReadAll(r.Body)
			if err := json.Unmarshal(b, &sent); err != nil {
				t.Errorf("PUT body: %v", err)
			}
			ifNoneMatch = r.Header.Get("If-None-Match")
			w.Header().Set("Azure-AsyncOperation", base+op+"put?api-version=2026-06-01")
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write(ex.Responses["200"].Body)
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/put"):
			if polls.Add(1) < 2 {
				fmt.Fprint(w, `{"status":"InProgress"}`)
				return
			}
			fmt.Fprint(w, `{"status":"Succeeded"}`)
		case r.Method == http.MethodGet && r.URL.Path == item:
			_, _ = w.Write(ex.Responses["200"].Body)
		case r.Method == http.MethodDelete && r.URL.Path == item:
			if r.Header.Get("If-Match") != `"EtagValue"` {
				t.Errorf("DELETE If-Match %q", r.Header.Get("If-Match"))
			}
			w.Header().Set("Location", base+op+"del?api-version=2026-06-01")
			w.WriteHeader(http.StatusAccepted)
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/del"):
			w.WriteHeader(http.StatusNoContent)
		default:
			t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
			w.WriteHeader(http.StatusBadRequest)
		}
	})
	base = srv.URL
	ctx := context.Background()
	got, err := done(c.BeginCreateOrUpdateManagedNamespace(ctx, testFleet, name, read, &Precondition{IfNoneMatch: "*"}))
	if err != nil {
		t.Fatal(err)
	}
	if got.Properties.PortalFqdn == "" || polls.Load() != 2 || ifNoneMatch != "*" {
		t.Errorf("created %+v after %d polls, If-None-Match %q", got, polls.Load(), ifNoneMatch)
	}
	props, _ := sent["properties"].(map[string]any)
	for _, ro := range []string{"provisioningState", "status", "portalFqdn"} {
		if _, ok := props[ro]; ok {
			t.Errorf("PUT sent read-only properties.%s", ro)
		}
	}
	for _, ro := range []string{"id", "name", "type", "systemData", "eTag"} {
		if _, ok := sent[ro]; ok {
			t.Errorf("PUT sent read-only %s", ro)
		}
	}
	if sent["location"] != "eastus" || props["adoptionPolicy"] != "Never" || props["deletePolicy"] != "Keep" || props["propagationPolicy"] == nil {
		t.Errorf("PUT body %v", sent)
	}
	if _, err := done(c.BeginDeleteManagedNamespace(ctx, testFleet, name, &Precondition{IfMatch: `"EtagValue"`})); err != nil {
		t.Fatal(err)
	}
}

// TestClientRefusesBadManagedNamespaces: what fleets.json refuses is refused
// before a request (name 1–63; location, adoptionPolicy and deletePolicy required).
func TestClientRefusesBadManagedNamespaces(t *testing.T) {
	c, _ := testServer(t, func(w http.ResponseWriter, r *http.Request) { t.Errorf("unexpected request %s", r.URL) })
	ctx := context.Background()
	ok := FleetManagedNamespace{Location: "eastus", Properties: &FleetManagedNamespaceProperties{AdoptionPolicy: "Never", DeletePolicy: "Keep"}}
	for name, tc := range map[string]struct {
		name string
		ns   FleetManagedNamespace
	}{
		"64 characters": {strings.Repeat("a", 64), ok},
		"upper case":    {"Team-a", ok},
		"trailing dash": {"team-", ok},
		"no location":   {"team-a", FleetManagedNamespace{Properties: ok.Properties}},
		"no policies":   {"team-a", FleetManagedNamespace{Location: "eastus", Properties: &FleetManagedNamespaceProperties{}}},
	} {
		if _, err := c.BeginCreateOrUpdateManagedNamespace(ctx, testFleet, tc.name, tc.ns, nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := c.GetManagedNamespace(ctx, testFleet, strings.Repeat("a", 64)); err == nil {
		t.Error("GetManagedNamespace accepted a 64-character name")
	}
	if CheckManagedNamespaceName(strings.Repeat("a", 63)) != nil || CheckManagedNamespaceName("a") != nil {
		t.Error("a 1- or 63-character name was refused")
	}
}
