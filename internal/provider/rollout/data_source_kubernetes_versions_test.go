package rollout_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

func locationVersions(i int) tfjsonpath.Path {
	return tfjsonpath.New("location_versions").AtSliceIndex(i)
}

func versionRow(version, minor string, preview, isDefault bool) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"version": knownvalue.StringExact(version), "minor": knownvalue.StringExact(minor),
		"is_preview": knownvalue.Bool(preview), "is_default": knownvalue.Bool(isDefault),
		// The emulator lists every minor under the community plan only.
		"support_plans":     knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("KubernetesOfficial")}),
		"long_term_support": knownvalue.Bool(false),
	})
}

// The test fleet's regions (testdata/fleet.yaml) both offer GA 1.31.9, 1.32.5
// and 1.33.1; eastus also 1.34.0 as a preview. Its clock runs in real time
// from 2026-11-23T00:00Z, so eastus's 1.33.2 (released at 12:00) is not out
// during the test.
func regionCheck(location string, withPreview bool) knownvalue.Check {
	versions := []knownvalue.Check{
		versionRow("1.31.9", "1.31", false, false),
		// AKS's default minor is N-1 (the emulator's rule); its latest patch is the default.
		versionRow("1.32.5", "1.32", false, true),
		versionRow("1.33.1", "1.33", false, false),
	}
	if withPreview {
		versions = append(versions, versionRow("1.34.0", "1.34", true, false))
	}
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"location":       knownvalue.StringExact(location),
		"versions":       knownvalue.ListExact(versions),
		"support_window": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("1.31"), knownvalue.StringExact("1.32"), knownvalue.StringExact("1.33")}),
		// Stable is N-1's latest GA patch, Rapid N's; the preview 1.34.0 is never a target.
		"channels": knownvalue.ObjectExact(map[string]knownvalue.Check{
			"stable": knownvalue.StringExact("1.32.5"),
			"rapid":  knownvalue.StringExact("1.33.1"),
		}),
		"latest_patch_by_minor": knownvalue.MapExact(map[string]knownvalue.Check{
			"1.31": knownvalue.StringExact("1.31.9"), "1.32": knownvalue.StringExact("1.32.5"), "1.33": knownvalue.StringExact("1.33.1"),
		}),
	})
}

func TestAccKubernetesVersionsDataSource(t *testing.T) {
	const addr = "data.fleet_kubernetes_versions.this"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			// Errors first: the post-test destroy runs the last step's configuration.
			{
				// AKS's own error for a location it does not serve, on the attribute.
				Config: `
provider "fleet" {}
data "fleet_kubernetes_versions" "this" { locations = ["eastus", "mars"] }
`,
				ExpectError: regexp.MustCompile(`(?s)Location mars:.*LocationNotAvailableForResourceType`),
			},
			{
				Config: `
provider "fleet" {}
data "fleet_kubernetes_versions" "this" { locations = ["eastus", "eastus"] }
`,
				ExpectError: regexp.MustCompile(`duplicate values`),
			},
			{
				Config: `
provider "fleet" {}
data "fleet_kubernetes_versions" "this" {
  locations = ["eastus"]
  fleet_id  = "demo"
}
`,
				ExpectError: regexp.MustCompile(`Invalid fleet ID`),
			},
			{
				// Default: the locations of the provider fleet's members, sorted.
				Config: `
provider "fleet" {}
data "fleet_kubernetes_versions" "this" {}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("fleet_id"), knownvalue.StringExact("/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("locations"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("eastus"), knownvalue.StringExact("westeurope")})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("eastus,westeurope")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("location_versions"), knownvalue.ListSizeExact(2)),
					statecheck.ExpectKnownValue(addr, locationVersions(0), regionCheck("eastus", true)),
					statecheck.ExpectKnownValue(addr, locationVersions(1), regionCheck("westeurope", false)),
				},
			},
			{
				// Given locations keep their order and need no fleet.
				Config: `
provider "fleet" {}
data "fleet_kubernetes_versions" "this" { locations = ["westeurope", "eastus"] }
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("fleet_id"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, locationVersions(0), regionCheck("westeurope", false)),
					statecheck.ExpectKnownValue(addr, locationVersions(1), regionCheck("eastus", true)),
				},
			},
		},
	})
}
