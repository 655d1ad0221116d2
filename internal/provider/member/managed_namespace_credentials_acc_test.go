package member_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// fleet_managed_namespace_credentials end to end, under the preview Fleet API: a managed namespace
// fixed on canary-east (whose own API server KubeFleet's real member agent applies to), and the
// namespace's credentials for canary-east handed to the echo provider, with which the test reads
// the namespace on canary-east's API server.

// managedNamespaceConfig is the namespace mns-creds on canary-east, with the ephemeral credentials
// of member handed to the echo provider unless member is ""; preview sets the provider's
// fleet_api_version to 2026-11-01-preview.
func managedNamespaceConfig(preview bool, member string) string {
	provider := `provider "fleet" {}`
	if preview {
		provider = `provider "fleet" {
  fleet_api_version = "2026-11-01-preview"
}`
	}
	config := provider + `
resource "fleet_managed_namespace" "creds" {
  name          = "mns-creds"
  location      = "eastus"
  delete_policy = "Delete"
  placement {
    placement_type = "PickFixed"
    cluster_names  = ["canary-east"]
  }
}
`
	if member == "" {
		return config
	}
	return config + fmt.Sprintf(`
ephemeral "fleet_managed_namespace_credentials" "this" {
  managed_namespace = fleet_managed_namespace.creds.name
  member            = %q
}
provider "echo" {
  data = ephemeral.fleet_managed_namespace_credentials.this
}
resource "echo" "namespace" {}
`, member)
}

// readPlacedNamespace proves the connection is the member's: with exactly what the ephemeral
// resource gave, it reaches the API server of the member's own kubeconfig in the local fleet and
// reads ns there as KubeFleet's member agent placed it (owned by an AppliedWork, which only a
// member has; the hub holds a namespace of that name too).
func (c captured) readPlacedNamespace(t *testing.T, member, ns string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		own, err := clientcmd.BuildConfigFromFlags("", filepath.Join(acctest.Current(t).Dir, "member-"+member+".kubeconfig"))
		if err != nil {
			return err
		}
		if c["host"] != own.Host {
			return fmt.Errorf("the credentials reach %q, not %s's API server %q", c["host"], member, own.Host)
		}
		cs, err := kubernetes.NewForConfig(&rest.Config{Host: c["host"], BearerToken: c["token"], TLSClientConfig: rest.TLSClientConfig{
			CAData: []byte(c["cluster_ca_certificate"]), CertData: []byte(c["client_certificate"]), KeyData: []byte(c["client_key"]),
		}})
		if err != nil {
			return err
		}
		got, err := cs.CoreV1().Namespaces().Get(context.Background(), ns, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading namespace %s with the ephemeral credentials: %w", ns, err)
		}
		for _, o := range got.OwnerReferences {
			if o.Kind == "AppliedWork" && got.Labels["kubernetes.azure.com/managedByArm"] == "true" {
				return nil
			}
		}
		return fmt.Errorf("namespace %s on %s: labels %v, owners %v; want it placed by KubeFleet for the Fleet API", ns, member, got.Labels, got.OwnerReferences)
	}
}

// TestAccManagedNamespaceCredentials: under the preview Fleet API the namespace's credentials for
// the member it is placed on connect to that member's API server, where the namespace is; under the
// stable version opening them fails and names fleet_api_version; a member the namespace is not
// placed on fails with the Fleet API's reason.
func TestAccManagedNamespaceCredentials(t *testing.T) {
	acctest.Current(t)
	conn := captured{}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: echoFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_10_0)},
		Steps: []resource.TestStep{{
			// The namespace first: an ephemeral resource is opened at plan, when its configuration is known.
			Config: managedNamespaceConfig(true, ""),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("fleet_managed_namespace.creds", tfjsonpath.New("placed_members"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("canary-east")})),
			},
		}, {
			Config:      managedNamespaceConfig(false, "canary-east"),
			ExpectError: acctest.WrappedRegexp(`(?s)fleet_managed_namespace_credentials needs the preview Fleet API.*Set fleet_api_version = "2026-11-01-preview" in the provider block`),
		}, {
			Config: managedNamespaceConfig(true, "prod-east-1"),
			ExpectError: acctest.WrappedRegexp(`Member "prod-east-1" of managed namespace "mns-creds": member prod-east-1: credentials Failed ` +
				`\(ManagedNamespaceNotPlaced: The managed namespace 'mns-creds' is not placed on fleet member 'prod-east-1' \(it is placed on canary-east\)\.\)`),
		}, {
			// Last, so that the destroy after the test opens credentials that work.
			Config: managedNamespaceConfig(true, "canary-east"),
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr("echo.namespace", "data.managed_namespace", "mns-creds"),
				resource.TestCheckResourceAttr("echo.namespace", "data.member", "canary-east"),
				conn.capture("echo.namespace", "host", "cluster_ca_certificate", "client_certificate", "client_key", "token"),
				conn.readPlacedNamespace(t, "canary-east", "mns-creds"),
			),
		}},
	})
}
