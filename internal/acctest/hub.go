package acctest

import (
	"os"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetops/terraform-provider-fleet/internal/localfleet"
)

// HubClient is a client of the local fleet's hub (KUBE_CONFIG_PATH of its
// env file), for tests' checks and out-of-band changes.
func HubClient(t testing.TB) client.Client {
	t.Helper()
	Current(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBE_CONFIG_PATH"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: localfleet.HubScheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
