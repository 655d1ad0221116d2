package emulator_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
)

// metadata is the part of ARM's metadata/endpoints that azurerm reads.
type metadata struct {
	Name            string `json:"name"`
	ResourceManager string `json:"resourceManager"`
	Authentication  struct {
		LoginEndpoint    string   `json:"loginEndpoint"`
		Audiences        []string `json:"audiences"`
		Tenant           string   `json:"tenant"`
		IdentityProvider string   `json:"identityProvider"`
	} `json:"authentication"`
	MicrosoftGraphResourceID string            `json:"microsoftGraphResourceId"`
	Suffixes                 map[string]string `json:"suffixes"`
}

func TestMetadataEndpointsDescribeTheEmulatorAsACloud(t *testing.T) {
	fx := newFixture(t)
	hc := fx.httpClient(t, true)
	get := func(apiVersion string, v any) {
		resp, err := hc.Get(fx.srv.URL() + "/metadata/endpoints?api-version=" + apiVersion)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("api-version %s: status %d", apiVersion, resp.StatusCode)
		}
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("api-version %s: %v", apiVersion, err)
		}
	}
	var m metadata // 2022-09-01, what azurerm asks for, is one object
	get("2022-09-01", &m)
	base := fx.srv.URL() + "/"
	if m.Name == "" || m.ResourceManager != base || m.Authentication.LoginEndpoint != base ||
		len(m.Authentication.Audiences) != 1 || m.Authentication.Audiences[0] != base ||
		m.Authentication.Tenant != "common" || m.Authentication.IdentityProvider != "AAD" ||
		m.MicrosoftGraphResourceID == "" || m.Suffixes["keyVaultDns"] == "" {
		t.Fatalf("2022-09-01 metadata: %+v", m)
	}
	var list []metadata // older api-versions list clouds
	get("2019-05-01", &list)
	if len(list) != 1 || list[0].ResourceManager != base {
		t.Fatalf("2019-05-01 metadata: %+v", list)
	}

	// A client configured only from the metadata reaches ARM.
	opts := azcore.ClientOptions{
		Cloud: cloud.Configuration{
			ActiveDirectoryAuthorityHost: m.Authentication.LoginEndpoint,
			Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
				cloud.ResourceManager: {Endpoint: m.ResourceManager, Audience: m.Authentication.Audiences[0]},
			},
		},
		Transport: hc,
	}
	cred, err := azidentity.NewClientSecretCredential(tenantID, clientID, clientSecret, &azidentity.ClientSecretCredentialOptions{ClientOptions: opts, DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	mc, err := armcontainerservice.NewManagedClustersClient(fx.sub, cred, &arm.ClientOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	got, err := mc.Get(context.Background(), fx.rg, "prod-east-1", nil)
	if err != nil {
		t.Fatalf("Get through the metadata's endpoints: %v", err)
	}
	if *got.Name != "prod-east-1" {
		t.Fatalf("got %s", *got.Name)
	}
}
