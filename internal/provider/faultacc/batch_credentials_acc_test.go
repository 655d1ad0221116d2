package faultacc

import (
	"net/http"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
)

// The operation classes the emulator's meter counts (GET /_emulator/metering) of getting a
// member's kubeconfig: in one batch through the fleet (2026-11-01-preview), or one by one, the
// member read and AKS's listClusterUserCredential of its cluster.
const (
	batchCredentials   = "POST Microsoft.ContainerService/fleets/*/listMemberCredentials"
	memberRead         = "GET Microsoft.ContainerService/fleets/*/members/*"
	clusterCredentials = "POST Microsoft.ContainerService/managedClusters/*/listClusterUserCredential"
)

// factsPlanCounts runs one `terraform plan` of w (one provider process, one read of its
// fleet_facts) and returns what the emulator counted of it.
func factsPlanCounts(t *testing.T, w *acctest.Workdir) emulator.MeterStats {
	t.Helper()
	f := acctest.Current(t)
	f.Admin(t, http.MethodDelete, "/_emulator/metering", nil, nil)
	w.Must("plan", "-input=false")
	var st emulator.MeterStats
	f.Admin(t, http.MethodGet, "/_emulator/metering", nil, &st)
	return st
}

// TestAccFactsBatchMemberCredentials: a fleet_facts that reads the Karpenter clusters kf-1 and
// kf-2 gets their kubeconfigs, under the preview Fleet API, from one fleets/listMemberCredentials,
// with no member read and no AKS listClusterUserCredential; under the stable version (which has no
// batch) from a member read and a listClusterUserCredential each, which the same counters see.
func TestAccFactsBatchMemberCredentials(t *testing.T) {
	w := acctest.NewWorkdir(t, `
data "fleet_facts" "karpenter" {
  clusters = ["kf-1", "kf-2"]
}
`)
	st := factsPlanCounts(t, w)
	t.Logf("stable: actions %v, reads %v", st.Actions, st.Reads)
	if st.Actions[batchCredentials] != 0 || st.Reads[memberRead] != 2 || st.Actions[clusterCredentials] != 2 {
		t.Errorf("stable: %d %s, %d %s, %d %s; want 0, 2 and 2 (one by one)",
			st.Actions[batchCredentials], batchCredentials, st.Reads[memberRead], memberRead, st.Actions[clusterCredentials], clusterCredentials)
	}

	w.Write("provider_override.tf", "provider \"fleet\" {\n  fleet_api_version = \"2026-11-01-preview\"\n}\n")
	st = factsPlanCounts(t, w)
	t.Logf("preview: actions %v, reads %v", st.Actions, st.Reads)
	if st.Actions[batchCredentials] != 1 || st.Reads[memberRead] != 0 || st.Actions[clusterCredentials] != 0 {
		t.Errorf("preview: %d %s, %d %s, %d %s; want 1, 0 and 0 (one batch)",
			st.Actions[batchCredentials], batchCredentials, st.Reads[memberRead], memberRead, st.Actions[clusterCredentials], clusterCredentials)
	}
}
