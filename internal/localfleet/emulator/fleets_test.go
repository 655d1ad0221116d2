package emulator_test

import (
	"bytes"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

func TestGetFleet(t *testing.T) {
	fx := newFixture(t)
	var f fleetapi.Fleet
	resp := fx.getFleetAPI(t, fx.fleetPath(""), &f)
	if f.ID != fx.fleetPath("") || f.Name != "demo" || f.Type != "Microsoft.ContainerService/fleets" || f.Location != "eastus" {
		t.Fatalf("fleet resource fields: %+v", f.Resource)
	}
	if f.ETag == "" || resp.Header.Get("ETag") != f.ETag {
		t.Fatalf("eTag %q, ETag header %q", f.ETag, resp.Header.Get("ETag"))
	}
	p := f.Properties
	if p == nil || p.ProvisioningState != "Succeeded" || p.HubProfile == nil {
		t.Fatalf("properties %+v", p)
	}
	// The hub's fqdn is its kubeconfig's server; its version the region's newest GA one.
	if p.HubProfile.Fqdn != "127.0.0.1" || p.HubProfile.KubernetesVersion != "1.33.1" {
		t.Fatalf("hubProfile %+v", p.HubProfile)
	}
	// Names are case-insensitive, as ARM's are.
	var again fleetapi.Fleet
	fx.getFleetAPI(t, strings.ReplaceAll(fx.fleetPath(""), "resourceGroups/rg-fleet", "resourcegroups/RG-FLEET"), &again)
	if again.ETag != f.ETag {
		t.Fatalf("case-insensitive path found %+v", again.Resource)
	}
}

func TestListFleets(t *testing.T) {
	fx := newFixture(t)
	for _, path := range []string{
		"/subscriptions/" + fx.sub + "/resourceGroups/" + fx.rg + "/providers/Microsoft.ContainerService/fleets",
		"/subscriptions/" + fx.sub + "/providers/Microsoft.ContainerService/fleets",
	} {
		var list struct {
			Value    []fleetapi.Fleet `json:"value"`
			NextLink string           `json:"nextLink"`
		}
		fx.getFleetAPI(t, path, &list)
		if len(list.Value) != 1 || list.Value[0].Name != "demo" || list.Value[0].ETag == "" || list.NextLink != "" {
			t.Fatalf("%s: %+v", path, list)
		}
	}
	resp, b := fx.do(t, http.MethodGet, "/subscriptions/"+fx.sub+"/resourceGroups/other/providers/Microsoft.ContainerService/fleets?api-version="+fleetapi.APIVersion)
	if e := armError(t, b); resp.StatusCode != 404 || e.Code != "ResourceGroupNotFound" {
		t.Fatalf("other resource group: %d %+v", resp.StatusCode, e)
	}
	resp, b = fx.do(t, http.MethodGet, "/subscriptions/99999999-0000-0000-0000-000000000000/providers/Microsoft.ContainerService/fleets?api-version="+fleetapi.APIVersion)
	if e := armError(t, b); resp.StatusCode != 404 || e.Code != "SubscriptionNotFound" {
		t.Fatalf("other subscription: %d %+v", resp.StatusCode, e)
	}
}

func TestListFleetCredentials(t *testing.T) {
	fx := newFixture(t)
	resp, b := fx.do(t, http.MethodPost, fx.fleetPath("/listCredentials")+"?api-version="+fleetapi.APIVersion)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var creds fleetapi.FleetCredentialResults
	decode(t, b, &creds)
	if len(creds.Kubeconfigs) != 1 || creds.Kubeconfigs[0].Name != "hub" || !bytes.Equal(creds.Kubeconfigs[0].Value, hubKubeconfig) {
		t.Fatalf("credentials %+v", creds)
	}
}

func TestListMembers(t *testing.T) {
	fx := newFixture(t)
	var all struct {
		Value    []fleetapi.FleetMember `json:"value"`
		NextLink string                 `json:"nextLink"`
	}
	fx.getFleetAPI(t, fx.fleetPath("/members"), &all)
	var names []string
	for _, m := range all.Value {
		names = append(names, m.Name)
	}
	want := []string{"canary-east", "prod-east-1", "prod-east-2", "prod-west-1", "staging-west"}
	if !reflect.DeepEqual(names, want) || all.NextLink != "" {
		t.Fatalf("members %v (nextLink %q), want %v", names, all.NextLink, want)
	}

	// With $top, pages follow nextLink.
	var paged []string
	pages := 0
	next := fx.fleetPath("/members") + "?$top=2&api-version=" + fleetapi.APIVersion
	for next != "" {
		pages++
		resp, b := fx.do(t, http.MethodGet, strings.TrimPrefix(next, fx.srv.URL()))
		if resp.StatusCode != 200 {
			t.Fatalf("page %d: %d %s", pages, resp.StatusCode, b)
		}
		var page struct {
			Value    []fleetapi.FleetMember `json:"value"`
			NextLink string                 `json:"nextLink"`
		}
		decode(t, b, &page)
		if len(page.Value) > 2 {
			t.Fatalf("page %d has %d members for $top=2", pages, len(page.Value))
		}
		for _, m := range page.Value {
			paged = append(paged, m.Name)
		}
		if page.NextLink != "" && !strings.HasPrefix(page.NextLink, fx.srv.URL()+"/") {
			t.Fatalf("nextLink %q is not absolute on the emulator", page.NextLink)
		}
		next = page.NextLink
	}
	if pages != 3 || !reflect.DeepEqual(paged, want) {
		t.Fatalf("paged %v over %d pages, want %v over 3", paged, pages, want)
	}

	resp, b := fx.do(t, http.MethodGet, fx.fleetPath("/members")+"?$top=0&api-version="+fleetapi.APIVersion)
	if e := armError(t, b); resp.StatusCode != 400 || e.Code != "InvalidParameter" {
		t.Fatalf("$top=0: %d %+v", resp.StatusCode, e)
	}
}

func TestGetMember(t *testing.T) {
	fx := newFixture(t)
	var m fleetapi.FleetMember
	resp := fx.getFleetAPI(t, fx.fleetPath("/members/prod-east-1"), &m)
	wantCluster := "/subscriptions/" + fx.sub + "/resourceGroups/" + fx.rg + "/providers/Microsoft.ContainerService/managedClusters/prod-east-1"
	if m.ID != fx.fleetPath("/members/prod-east-1") || m.Name != "prod-east-1" || m.Type != "Microsoft.ContainerService/fleets/members" {
		t.Fatalf("member resource %+v", m.Resource)
	}
	if m.ETag == "" || resp.Header.Get("ETag") != m.ETag {
		t.Fatalf("eTag %q, header %q", m.ETag, resp.Header.Get("ETag"))
	}
	p := m.Properties
	if p == nil || p.ClusterResourceID != wantCluster || p.Group != "prod" || p.ProvisioningState != "Succeeded" ||
		!reflect.DeepEqual(p.Labels, map[string]string{"env": "prod", "tier": "gold"}) {
		t.Fatalf("member properties %+v", p)
	}
}

func TestARMErrorShapes(t *testing.T) {
	fx := newFixture(t)
	av := "?api-version=" + fleetapi.APIVersion
	otherFleet := "/subscriptions/" + fx.sub + "/resourceGroups/" + fx.rg + "/providers/Microsoft.ContainerService/fleets/nope"
	for _, tc := range []struct {
		name, method, path string
		status             int
		code               string
	}{
		{"missing fleet", "GET", otherFleet + av, 404, "ResourceNotFound"},
		{"member of a missing fleet", "GET", otherFleet + "/members/prod-east-1" + av, 404, "ParentResourceNotFound"},
		{"members of a missing fleet", "GET", otherFleet + "/members" + av, 404, "ParentResourceNotFound"},
		{"missing member", "GET", fx.fleetPath("/members/nope") + av, 404, "ResourceNotFound"},
		{"old api-version", "GET", fx.fleetPath("") + "?api-version=2025-03-01", 400, "InvalidApiVersion"},
		{"no api-version", "GET", fx.fleetPath(""), 400, "MissingApiVersionParameter"},
		{"unknown resource type", "GET", fx.fleetPath("/widgets") + av, 404, "InvalidResourceType"},
		{"unsupported method", "POST", fx.fleetPath("/members/prod-east-1") + av, 405, "MethodNotAllowed"},
	} {
		resp, b := fx.do(t, tc.method, tc.path)
		e := armError(t, b)
		if resp.StatusCode != tc.status || e.Code != tc.code {
			t.Errorf("%s: %d %s (%s), want %d %s", tc.name, resp.StatusCode, e.Code, e.Message, tc.status, tc.code)
		}
		if resp.Header.Get("x-ms-request-id") == "" || resp.Header.Get("Date") == "" {
			t.Errorf("%s: error response without x-ms-request-id or Date", tc.name)
		}
	}
}

func TestDateHeaderIsTheSimulatedTime(t *testing.T) {
	fx := newFixture(t)
	start := fx.file.Clock.Start // 2026-11-23T00:00:00Z at 3600x
	var f fleetapi.Fleet
	resp := fx.getFleetAPI(t, fx.fleetPath(""), &f)
	if got := resp.Header.Get("Date"); got != start.Format(http.TimeFormat) {
		t.Fatalf("Date %q, want the clock's start %q", got, start.Format(http.TimeFormat))
	}
	fx.real.Advance(90 * time.Second) // 90 simulated hours
	resp = fx.getFleetAPI(t, fx.fleetPath("/members"), &struct{}{})
	want := start.Add(90 * time.Hour).Format(http.TimeFormat)
	if got := resp.Header.Get("Date"); got != want {
		t.Fatalf("Date %q after 90 real seconds, want %q", got, want)
	}
	if id := resp.Header.Get("x-ms-request-id"); len(id) != 36 {
		t.Fatalf("x-ms-request-id %q", id)
	}
}
