package placement_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// warningRecorder serves the real provider and keeps, for every data source read, the warnings
// it returned (terraform-plugin-testing shows no warnings to the test).
type warningRecorder struct {
	tfprotov6.ProviderServer
	mu    *sync.Mutex
	reads *[][]string
}

func (w warningRecorder) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	resp, err := w.ProviderServer.ReadDataSource(ctx, req)
	if resp != nil {
		var ws []string
		for _, d := range resp.Diagnostics {
			if d.Severity == tfprotov6.DiagnosticSeverityWarning {
				ws = append(ws, d.Summary+": "+d.Detail)
			}
		}
		w.mu.Lock()
		*w.reads = append(*w.reads, ws)
		w.mu.Unlock()
	}
	return resp, err
}

// A policy naming a property no member reports (Fleet Manager's property-based scheduling article
// uses kubernetes.azure.com/node-count; members report kubernetes-fleet.io/node-count) plans with
// one warning naming the closest reported property, however many members and uses there are.
func TestAccPlacementPreviewUnknownPropertyWarning(t *testing.T) {
	var mu sync.Mutex
	var reads [][]string
	factories := map[string]func() (tfprotov6.ProviderServer, error){
		"fleet": func() (tfprotov6.ProviderServer, error) {
			s, err := acctest.ProtoV6ProviderFactories["fleet"]()
			return warningRecorder{ProviderServer: s, mu: &mu, reads: &reads}, err
		},
	}
	config := acctest.ProviderConfig + `
data "fleet_placement_preview" "what_if" {
  policy {
    placement_type     = "PickN"
    number_of_clusters = 2
    required_cluster_selector {
      property_expression {
        name = "kubernetes.azure.com/node-count"
        operator = "Ge"
        values = ["3"]
      }
    }
    preferred_cluster_selector {
      weight          = 50
      property_sorter {
        name = "kubernetes.azure.com/node-count"
        sort_order = "Descending"
      }
    }
  }
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config: config,
			Check: func(*terraform.State) error {
				mu.Lock()
				defer mu.Unlock()
				if len(reads) == 0 {
					return fmt.Errorf("the data source was never read")
				}
				for i, ws := range reads {
					var ours []string
					for _, w := range ws {
						if strings.Contains(w, "no member cluster reports") {
							ours = append(ours, w)
						}
					}
					if len(ours) != 1 {
						return fmt.Errorf("read %d: want exactly one unknown-property warning, got %d: %q", i, len(ours), ws)
					}
					for _, want := range []string{
						`"kubernetes.azure.com/node-count" (required term 0, preferred term 0 (sorter))`,
						`the closest reported: "kubernetes-fleet.io/node-count"`,
					} {
						if !strings.Contains(ours[0], want) {
							return fmt.Errorf("read %d: the warning %q lacks %q", i, ours[0], want)
						}
					}
				}
				return nil
			},
		}},
	})
}
