package placement

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// The state upgrades from schema version 0 (nested attributes) to 1 (blocks, issue 35).

var (
	_ resource.ResourceWithUpgradeState = (*placementResource)(nil)
	_ resource.ResourceWithUpgradeState = (*overrideResource)(nil)
)

// placementBlockRenames upgrades fleet_placement and fleet_resource_placement (whose selectors
// have no selection_scope; the renames are the same).
var placementBlockRenames = shared.BlockRenames{
	Renames: map[string]string{
		"resource_selectors": "resource_selector",
		"resource_selectors.label_selector.match_expressions":    "match_expression",
		"policy.required_cluster_selectors":                      "required_cluster_selector",
		"policy.required_cluster_selectors.label_expressions":    "label_expression",
		"policy.required_cluster_selectors.property_expressions": "property_expression",
		"policy.preferred_cluster_selectors":                     "preferred_cluster_selector",
		"policy.preferred_cluster_selectors.label_expressions":   "label_expression",
		"policy.topology_spread_constraints":                     "topology_spread_constraint",
		"policy.tolerations":                                     "toleration",
	},
	// strategy and apply_strategy were Optional+Computed with these defaults (objectdefault in
	// version 0's schema, and what Read filled in from a hub holding the defaults): the state of a
	// configuration without them. A block cannot be computed, so that state becomes null, as an
	// omitted block plans; a configuration that writes the block plans them back in place.
	NullWhenEqual: map[string]any{
		// RollingUpdate, 25% / 25% / 60 s (placementDefaultMaxUnavailable, placementDefaultMaxSurge,
		// placementDefaultUnavailablePeriod).
		"strategy": map[string]any{
			"type":                       "RollingUpdate",
			"max_unavailable":            "25%",
			"max_surge":                  "25%",
			"unavailable_period_seconds": float64(60),
		},
		// The CRD's defaults: ClientSideApply, PartialComparison, apply Always, take over Always,
		// no co-ownership, no server-side apply config (applyDefault*).
		"apply_strategy": map[string]any{
			"type":                     "ClientSideApply",
			"comparison_option":        "PartialComparison",
			"when_to_apply":            "Always",
			"when_to_take_over":        "Always",
			"allow_co_ownership":       false,
			"server_side_apply_config": nil,
		},
	},
}

// overrideBlockRenames upgrades fleet_cluster_resource_override and fleet_resource_override.
var overrideBlockRenames = shared.BlockRenames{
	Renames: map[string]string{
		"resource_selectors":           "resource_selector",
		"rules":                        "rule",
		"rules.cluster_selector.terms": "term",
		"rules.cluster_selector.terms.expressions": "expression",
		"rules.cluster_selector.terms.properties":  "property",
		"rules.json_patches":                       "json_patch",
	},
}

func (r *placementResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: shared.BlocksUpgrade(placementBlockRenames)}
}

func (r *overrideResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: shared.BlocksUpgrade(overrideBlockRenames)}
}
