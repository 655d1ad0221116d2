package member_test

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// weekdayAt checks an RFC 3339 time falls on the day and clock time of a
// weekly window.
func weekdayAt(day time.Weekday, hhmm string) knownvalue.Check {
	return knownvalue.StringFunc(func(v string) error {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return err
		}
		if t.Weekday() != day || t.Format("15:04") != hhmm {
			return fmt.Errorf("%s is %s %s, want %s %s", v, t.Weekday(), t.Format("15:04"), day, hhmm)
		}
		return nil
	})
}

func TestAccMembersDataSource(t *testing.T) {
	const addr = "data.fleet_members.all"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.MembersConfig,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo")),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("members"), knownvalue.ListSizeExact(5)),
				// canary-east: the Fleet API member, its managed cluster, an open window and the hub's view.
				statecheck.ExpectKnownValue(addr, acctest.MemberAt(0), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"name":                knownvalue.StringExact("canary-east"),
					"group":               knownvalue.StringExact("canary"),
					"labels":              knownvalue.MapExact(map[string]knownvalue.Check{"env": knownvalue.StringExact("canary")}),
					"location":            knownvalue.StringExact("eastus"),
					"cluster_resource_id": knownvalue.StringExact("/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/managedClusters/canary-east"),
					"kubernetes_version":  knownvalue.StringExact("1.32.5"),
					"node_pools": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
						"name": knownvalue.StringExact("system"), "count": knownvalue.Int64Exact(3),
						"node_image_version": knownvalue.StringExact("AKSUbuntu-2204gen2containerd-202510.01.0"),
					})}),
					// The simulated clock starts Monday 2026-11-23 00:00 and runs in real time here:
					// canary-east's Monday 00:00 window (8h) is open.
					"maintenance_window": knownvalue.StringExact("open"),
					"window_opens_at":    knownvalue.StringExact("2026-11-23T00:00:00Z"),
					"hub_labels": knownvalue.MapPartial(map[string]knownvalue.Check{
						"env": knownvalue.StringExact("canary"), "fleet.azure.com/location": knownvalue.StringExact("eastus"),
						"fleet.azure.com/resource-group": knownvalue.StringExact("rg-fleet"),
					}),
					"properties": knownvalue.MapPartial(map[string]knownvalue.Check{
						"kubernetes-fleet.io/node-count":                 knownvalue.StringExact("3"),
						"resources.kubernetes-fleet.io/capacity-cpu":     knownvalue.StringExact("12"),
						"resources.kubernetes-fleet.io/available-memory": knownvalue.StringExact("20Gi"),
					}),
					"taints":         knownvalue.ListSizeExact(0),
					"healthy":        knownvalue.Bool(true),
					"health_message": knownvalue.Null(),
				})),
				// prod-east-1: no maintenance window, a custom hub property.
				statecheck.ExpectKnownValue(addr, acctest.MemberAt(1), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"name": knownvalue.StringExact("prod-east-1"), "maintenance_window": knownvalue.StringExact("none"),
					"window_opens_at": knownvalue.Null(),
					"properties": knownvalue.MapPartial(map[string]knownvalue.Check{
						"kubernetes.azure.com/per-cpu-core-cost": knownvalue.StringExact("0.073"),
						"kubernetes-fleet.io/node-count":         knownvalue.StringExact("5"),
					}),
				})),
				// prod-east-2: tainted, on another node image.
				statecheck.ExpectKnownValue(addr, acctest.MemberAt(2), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"name": knownvalue.StringExact("prod-east-2"), "kubernetes_version": knownvalue.StringExact("1.31.9"),
					"taints": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
						"key": knownvalue.StringExact("dedicated"), "value": knownvalue.StringExact("gpu"), "effect": knownvalue.StringExact("NoSchedule"),
					})}),
				})),
				// prod-west-1: a Saturday 02:00 window, closed on Monday.
				statecheck.ExpectKnownValue(addr, acctest.MemberAt(3), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"name": knownvalue.StringExact("prod-west-1"), "location": knownvalue.StringExact("westeurope"),
					"maintenance_window": knownvalue.StringExact("closed"),
					"window_opens_at":    weekdayAt(time.Saturday, "02:00"),
				})),
				// staging-west: its member agent stopped heartbeating.
				statecheck.ExpectKnownValue(addr, acctest.MemberAt(4), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"name": knownvalue.StringExact("staging-west"), "healthy": knownvalue.Bool(false),
					"health_message": knownvalue.StringRegexp(regexp.MustCompile(`no recent heartbeat signals`)),
				})),
			},
		}},
	})
}

// Bad provider configurations fail with the attribute (or environment
// variable) named, before anything is created.
func TestAccProviderConfigurationErrors(t *testing.T) {
	cases := []struct {
		name   string
		env    map[string]string
		config string
		want   string
	}{
		{
			name:   "missing subscription",
			env:    map[string]string{"ARM_SUBSCRIPTION_ID": ""},
			config: `provider "fleet" {}`,
			want:   `subscription_id`,
		},
		{
			name: "unreadable kubeconfig",
			config: `provider "fleet" {
  hub { config_path = "/nonexistent/kubeconfig" }
}`,
			want: `hub.config_path|/nonexistent/kubeconfig`,
		},
		{
			name:   "unreachable endpoint",
			env:    map[string]string{"ARM_METADATA_HOSTNAME": "127.0.0.1:1"},
			config: `provider "fleet" {}`,
			want:   `metadata_host|ARM_METADATA_HOSTNAME`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      tc.config + "\ndata \"fleet_members\" \"all\" {}\n",
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}
