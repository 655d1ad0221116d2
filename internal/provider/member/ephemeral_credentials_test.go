package member_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/echoprovider"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

var echoFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"fleet": acctest.ProtoV6ProviderFactories["fleet"],
	"echo":  echoprovider.NewProviderServer(),
}

// echoCredentials is a configuration that hands the ephemeral fleet_<kind>_credentials (of member,
// unless "") to the echo provider, read back as echo.<kind>.
func echoCredentials(kind, member string) string {
	body := ""
	if member != "" {
		body = fmt.Sprintf("\n  member = %q\n", member)
	}
	return fmt.Sprintf(`
ephemeral "fleet_%[1]s_credentials" "this" {%[2]s}
provider "echo" {
  data = ephemeral.fleet_%[1]s_credentials.this
}
resource "echo" %[1]q {}
`, kind, body)
}

// captured collects one echoed connection, attribute by attribute.
type captured map[string]string

func (c captured) capture(addr string, attrs ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		r, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s not in state", addr)
		}
		for _, a := range attrs {
			c[a] = r.Primary.Attributes["data."+a] // absent (null) is ""
		}
		return nil
	}
}

// connect proves the connection works: it lists namespaces with exactly
// what the ephemeral resource gave, as the kubernetes provider would.
func (c captured) connect(want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		cs, err := kubernetes.NewForConfig(&rest.Config{Host: c["host"], BearerToken: c["token"], TLSClientConfig: rest.TLSClientConfig{
			CAData: []byte(c["cluster_ca_certificate"]), CertData: []byte(c["client_certificate"]), KeyData: []byte(c["client_key"]),
		}})
		if err != nil {
			return err
		}
		list, err := cs.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("connecting with the ephemeral credentials: %w", err)
		}
		for _, ns := range list.Items {
			if ns.Name == want {
				return nil
			}
		}
		return fmt.Errorf("namespace %q not found through the ephemeral credentials (%d namespaces)", want, len(list.Items))
	}
}

// fleet_hub_credentials and fleet_member_credentials give connections that
// work (the hub's has KubeFleet's fleet-member namespaces; the member's is a
// different API server), reach the echo provider's configuration, and are
// never in the plan or state of a fleet resource.
func TestAccCredentialsEphemeral(t *testing.T) {
	hub, member := captured{}, captured{}
	attrs := []string{"host", "cluster_ca_certificate", "client_certificate", "client_key", "token"}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: echoFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_10_0)},
		Steps: []resource.TestStep{{
			// A member the local fleet simulates without an API server: AKS's error, naming the member.
			Config:      echoCredentials("member", "staging-west"),
			ExpectError: regexp.MustCompile(`(?s)listClusterUserCredential.*staging-west`),
		}, {
			Config:      echoCredentials("member", "no-such-member"),
			ExpectError: regexp.MustCompile(`(?s)Fleet\s.*has no member "no-such-member"`),
		}, {
			Config: echoCredentials("hub", ""),
			Check: resource.ComposeTestCheckFunc(
				resource.TestMatchResourceAttr("echo.hub", "data.host", regexp.MustCompile(`^https://127\.0\.0\.1:\d+$`)),
				resource.TestMatchResourceAttr("echo.hub", "data.cluster_ca_certificate", regexp.MustCompile(`^-----BEGIN CERTIFICATE-----`)),
				resource.TestMatchResourceAttr("echo.hub", "data.fleet_id", regexp.MustCompile(`/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo$`)),
				resource.TestCheckResourceAttrSet("echo.hub", "data.client_key"),
				resource.TestCheckNoResourceAttr("echo.hub", "data.token"),
				hub.capture("echo.hub", attrs...),
				hub.connect("fleet-member-canary-east"),
			),
		}, {
			Config: echoCredentials("member", "canary-east"),
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr("echo.member", "data.member", "canary-east"),
				member.capture("echo.member", attrs...),
				func(*terraform.State) error {
					if member["host"] == hub["host"] || member["host"] == "" {
						return fmt.Errorf("member host %q: want the member's own API server, not the hub's %q", member["host"], hub["host"])
					}
					return nil
				},
				member.connect("kube-system"),
			),
		}},
	})
}
