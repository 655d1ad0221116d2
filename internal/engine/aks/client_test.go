package aks

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

type fakeCredential struct{}

func (fakeCredential) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "aks-token", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

func TestParseClusterID(t *testing.T) {
	id, err := ParseClusterID("/subscriptions/subid1/resourcegroups/rg1/providers/Microsoft.ContainerService/managedClusters/cluster-1")
	if err != nil {
		t.Fatal(err)
	}
	if id != (ClusterID{SubscriptionID: "subid1", ResourceGroupName: "rg1", Name: "cluster-1"}) {
		t.Errorf("id = %+v", id)
	}
	if id.String() != "/subscriptions/subid1/resourceGroups/rg1/providers/Microsoft.ContainerService/managedClusters/cluster-1" {
		t.Errorf("String = %s", id)
	}
	for _, bad := range []string{"", "cluster-1",
		"/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f",
		"/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/c/agentPools/p"} {
		if _, err := ParseClusterID(bad); err == nil {
			t.Errorf("ParseClusterID(%q) accepted", bad)
		}
	}
}

func TestClient(t *testing.T) {
	var srvURL string
	var seen []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.URL.Path)
		if r.Header.Get("Authorization") != "Bearer aks-token" {
			t.Errorf("Authorization = %q", r.Header.Get("Authorization"))
		}
		w.Header().Set("Content-Type", "application/json")
		base := "/subscriptions/sub2/resourceGroups/rg2/providers/Microsoft.ContainerService/managedClusters/c1"
		switch {
		case r.Method == http.MethodGet && r.URL.Path == base:
			fmt.Fprint(w, `{"id":"`+base+`","name":"c1","location":"eastus","properties":{"kubernetesVersion":"1.32.5","currentKubernetesVersion":"1.32.5",
				"agentPoolProfiles":[{"name":"system","count":3,"nodeImageVersion":"AKSUbuntu-2204gen2containerd-202510.01.0"}]}}`)
		case r.Method == http.MethodPost && r.URL.Path == base+"/listClusterUserCredential":
			if r.URL.Query().Get("format") != "exec" {
				t.Errorf("format = %q", r.URL.Query().Get("format"))
			}
			fmt.Fprint(w, `{"kubeconfigs":[{"name":"clusterUser","value":"YXBpVmVyc2lvbjogdjE="}]}`)
		case r.URL.Path == "/subscriptions/sub1/providers/Microsoft.ContainerService/locations/eastus/kubernetesVersions":
			fmt.Fprint(w, `{"values":[{"version":"1.32","isPreview":false,"patchVersions":{"1.32.5":{"upgrades":["1.33.1"]}}},{"version":"1.34","isPreview":true}]}`)
		case r.URL.Path == base+"/maintenanceConfigurations":
			if r.URL.Query().Get("page") == "" {
				fmt.Fprintf(w, `{"value":[{"name":"aksManagedAutoUpgradeSchedule"}],"nextLink":"%s%s?page=2"}`, srvURL, r.URL.Path)
			} else {
				fmt.Fprint(w, `{"value":[{"name":"aksManagedNodeOSUpgradeSchedule"}]}`)
			}
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"code":"ResourceNotFound","message":"not found"}}`)
		}
	}))
	defer srv.Close()
	srvURL = srv.URL
	c := NewClientWithOptions("sub1", fakeCredential{}, &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{
			Cloud:     cloud.Configuration{ActiveDirectoryAuthorityHost: srv.URL + "/", Services: map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {Endpoint: srv.URL, Audience: "https://aks.test"}}},
			Transport: srv.Client(),
			Retry:     policy.RetryOptions{MaxRetries: -1},
		},
		DisableRPRegistration: true,
	})
	ctx := context.Background()
	id := ClusterID{SubscriptionID: "sub2", ResourceGroupName: "rg2", Name: "c1"}

	mc, err := c.GetCluster(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if *mc.Properties.CurrentKubernetesVersion != "1.32.5" || len(mc.Properties.AgentPoolProfiles) != 1 || *mc.Properties.AgentPoolProfiles[0].Count != 3 {
		t.Errorf("cluster = %+v", mc.Properties)
	}
	kc, err := c.ClusterUserKubeconfig(ctx, id)
	if err != nil || string(kc) != "apiVersion: v1" {
		t.Errorf("kubeconfig = %q, %v", kc, err)
	}
	vs, err := c.ListKubernetesVersions(ctx, "eastus")
	if err != nil || len(vs) != 2 || *vs[0].Version != "1.32" || !*vs[1].IsPreview {
		t.Errorf("versions = %v, %v", vs, err)
	}
	// Read once per location and process; a failed read is not kept.
	if _, err := c.ListKubernetesVersions(ctx, "eastus"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListKubernetesVersions(ctx, "mars"); err == nil {
		t.Error("versions of an unknown location: no error")
	}
	_, _ = c.ListKubernetesVersions(ctx, "mars")
	versionReads := map[string]int{}
	for _, s := range seen {
		if strings.HasSuffix(s, "/kubernetesVersions") {
			versionReads[s]++
		}
	}
	if versionReads["GET /subscriptions/sub1/providers/Microsoft.ContainerService/locations/eastus/kubernetesVersions"] != 1 ||
		versionReads["GET /subscriptions/sub1/providers/Microsoft.ContainerService/locations/mars/kubernetesVersions"] != 2 {
		t.Errorf("version list reads %v: want eastus once, the failing mars each time", versionReads)
	}
	ms, err := c.ListMaintenanceConfigurations(ctx, id)
	if err != nil || len(ms) != 2 || *ms[1].Name != "aksManagedNodeOSUpgradeSchedule" {
		t.Errorf("maintenance configurations = %v, %v", ms, err)
	}
	_, err = c.GetCluster(ctx, ClusterID{SubscriptionID: "sub2", ResourceGroupName: "rg2", Name: "gone"})
	if !IsNotFound(err) {
		t.Errorf("IsNotFound(%v) = false", err)
	}
	if IsNotFound(fmt.Errorf("other")) {
		t.Error("IsNotFound(plain) = true")
	}
	if !strings.Contains(strings.Join(seen, "\n"), "POST /subscriptions/sub2/resourceGroups/rg2/providers/Microsoft.ContainerService/managedClusters/c1/listClusterUserCredential") {
		t.Errorf("requests: %v", seen)
	}
}

// TestListNodeImageVersions: the preview api-version, pages followed, once
// per location and process, a failure kept (one request where the API is not served).
func TestListNodeImageVersions(t *testing.T) {
	var srvURL string
	reads := map[string]int{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reads[r.URL.Path]++
		if v := r.URL.Query().Get("api-version"); v != NodeImageVersionsAPIVersion {
			t.Errorf("api-version %q, want %q", v, NodeImageVersionsAPIVersion)
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/subscriptions/sub1/providers/Microsoft.ContainerService/locations/eastus/nodeImageVersions":
			if r.URL.Query().Get("page") == "" {
				fmt.Fprintf(w, `{"value":[{"fullName":"AKSUbuntu-2204gen2containerd-202512.01.0","os":"AKSUbuntu","sku":"2204gen2containerd","version":"202512.01.0"}],"nextLink":"%s%s?api-version=%s&page=2"}`,
					srvURL, r.URL.Path, NodeImageVersionsAPIVersion)
				return
			}
			fmt.Fprint(w, `{"value":[{"fullName":"AKSAzureLinux-V2gen2-202512.02.0","os":"AKSAzureLinux","sku":"V2gen2","version":"202512.02.0"}]}`)
		default:
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"code":"NoRegisteredProviderFound","message":"No registered resource provider found for location 'mars' and API version '2025-07-02-preview'"}}`)
		}
	}))
	defer srv.Close()
	srvURL = srv.URL
	c := NewClientWithOptions("sub1", fakeCredential{}, &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{
			Cloud:     cloud.Configuration{ActiveDirectoryAuthorityHost: srv.URL + "/", Services: map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {Endpoint: srv.URL, Audience: "https://aks.test"}}},
			Transport: srv.Client(),
			Retry:     policy.RetryOptions{MaxRetries: -1},
		},
		DisableRPRegistration: true,
	})
	ctx := context.Background()
	for range 2 {
		got, err := c.ListNodeImageVersions(ctx, "eastus")
		if err != nil || len(got) != 2 || got[0].FullName != "AKSUbuntu-2204gen2containerd-202512.01.0" || got[1].SKU != "V2gen2" {
			t.Fatalf("eastus = %+v, %v", got, err)
		}
		if _, err := c.ListNodeImageVersions(ctx, "mars"); err == nil || !strings.Contains(err.Error(), "NoRegisteredProviderFound") {
			t.Fatalf("mars: %v, want the API's error", err)
		}
	}
	if n := reads["/subscriptions/sub1/providers/Microsoft.ContainerService/locations/eastus/nodeImageVersions"]; n != 2 {
		t.Errorf("eastus read %d times, want its 2 pages once", n)
	}
	if n := reads["/subscriptions/sub1/providers/Microsoft.ContainerService/locations/mars/nodeImageVersions"]; n != 1 {
		t.Errorf("the failing mars read %d times, want once", n)
	}
}
