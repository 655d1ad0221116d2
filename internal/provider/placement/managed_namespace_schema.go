package placement

import (
	"context"
	"fmt"
	"maps"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/managednamespace"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_managed_namespace's schema. The placement block reuses fleet_placement's blocks
// (placementRequiredSelectorBlock, placementTolerationBlock): the Fleet API sends KubeFleet's own
// terms and tolerations.

// managedNamespaceNameRe is fleets.json's managedNamespaceName pattern (1 to 63 characters: a
// Kubernetes namespace name).
var managedNamespaceNameRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func managedNamespaceSchema(ctx context.Context) rschema.Schema {
	fleetID := shared.FleetIDAttribute("managed namespace")
	return rschema.Schema{
		Description: "A managed namespace of an Azure Kubernetes Fleet Manager fleet (`fleets/managedNamespaces`, API 2026-06-01): " +
			"a namespace Fleet Manager writes on the hub, with its default resource quota and network policy, and places on " +
			"member clusters through a generated ClusterResourcePlacement named as the namespace. The plan's `preview` shows " +
			"which members KubeFleet's scheduler will place it on and why every other member is left out, by the hub agent's own " +
			"rules (v0.18.9), and `objects` the Namespace, ResourceQuota and NetworkPolicy as they will be written. Updates are " +
			"guarded by the namespace's ETag; changing `placement.placement_type` or removing a toleration fails at plan, as " +
			"KubeFleet rejects each.",
		Attributes: map[string]rschema.Attribute{
			"id": shared.IDAttribute("The managed namespace's ARM resource ID: `<fleet ID>/managedNamespaces/<name>`."),
			"fleet_id": rschema.StringAttribute{
				Optional: true, Computed: true, Description: fleetID.Description, Validators: fleetID.Validators,
				PlanModifiers: shared.KeptOrReplaced(),
			},
			"name": shared.ReplacingAttribute("The namespace's name on the hub and the members, and the generated placement's: "+
				"lower-case letters, digits and '-', 1 to 63 characters, starting and ending with a letter or digit, and not starting "+
				"with `fleet-` or `kube-` (the fleet reserves them). Changing it "+
				"replaces the managed namespace.", stringvalidator.LengthBetween(1, fleetapi.ManagedNamespaceNameMax),
				stringvalidator.RegexMatches(managedNamespaceNameRe, "must be lower-case letters, digits and '-', starting and ending with a letter or digit")),
			"location": shared.ReplacingAttribute("The Azure region of the ARM resource (a tracked resource), e.g. `eastus`; "+
				"`East US` is the same region. Changing it replaces the managed namespace.", stringvalidator.LengthAtLeast(1)),
			"tags": rschema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "ARM tags of the managed namespace (not written on the namespace: see `labels`).",
				// Azure's tag limits (azure-resource-manager/management/tag-resources#limitations): 50 tags, names of
				// at most 512 characters, values of at most 256.
				Validators: []validator.Map{mapvalidator.NoNullValues(), mapvalidator.SizeAtMost(50),
					mapvalidator.KeysAre(stringvalidator.LengthBetween(1, 512)), mapvalidator.ValueStringsAre(stringvalidator.LengthAtMost(256))},
			},
			"labels": rschema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "Labels of the namespace (Kubernetes label keys and values). Fleet Manager adds `" +
					managednamespace.ManagedByLabel + ": \"true\"`, which cannot be set here.",
				Validators: []validator.Map{mapvalidator.NoNullValues()},
			},
			"annotations": rschema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "Annotations of the namespace (Kubernetes annotation keys).",
				Validators:  []validator.Map{mapvalidator.NoNullValues()},
			},
			"adoption_policy": rschema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(fleetapi.AdoptionPolicyNever),
				Description: "What happens where a namespace of that name already exists on a member: `Never` (leave it, and the " +
					"placement fails there), `IfIdentical` (take it over when it is identical) or `Always` (take it over). The generated " +
					"placement's `whenToTakeOver` is `Never`, `IfNoDiff` or `Always`. Default: `Never`.",
				Validators: []validator.String{stringvalidator.OneOf(fleetapi.AdoptionPolicyNever, fleetapi.AdoptionPolicyIfIdentical, fleetapi.AdoptionPolicyAlways)},
			},
			"delete_policy": rschema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(fleetapi.DeletePolicyKeep),
				Description: "What destroying the managed namespace does to the namespaces: `Keep` (only the ARM resource goes; the " +
					"namespaces stay, without the managed-by-ARM label) or `Delete` (the namespaces go too, from the hub and every " +
					"member). Default: `Keep`.",
				Validators: []validator.String{stringvalidator.OneOf(fleetapi.DeletePolicyKeep, fleetapi.DeletePolicyDelete)},
			},
			"facts": preview.FactsAttribute("the preview"),
			"provisioning_state": shared.ComputedString("The state of the last operation: `Succeeded`, `Failed`, `Canceled`, " +
				"`Creating`, `Updating` or `Deleting`."),
			"portal_fqdn":    shared.ComputedString("The Azure portal FQDN of the fleet hub."),
			"status_message": shared.ComputedString("The last operation's error message; null when it had none."),
			"placed_members": rschema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				Description: "The members the namespace is placed on, by name: those the generated placement reports Applied and " +
					"Available for its current generation. Read from the hub on every refresh; null when the hub has no generated " +
					"placement of that name.",
			},
			"objects": rschema.ListNestedAttribute{
				Computed: true,
				Description: "What is written on the hub and placed on every picked member, as YAML: the Namespace (with the " +
					"managed-by-ARM label), then its ResourceQuota `" + managednamespace.QuotaName + "` and NetworkPolicy `" +
					managednamespace.NetworkPolicyName + "` when `resource_quota` and `network_policy` ask for them.",
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"kind": shared.ComputedString("`Namespace`, `ResourceQuota` or `NetworkPolicy`."),
					"name": shared.ComputedString("The object's name."),
					"yaml": shared.ComputedString("The object as it will be written."),
				}},
			},
			"preview": managedNamespacePreviewAttribute(),
		},
		Blocks: managedNamespaceBlocks(ctx),
	}
}

func managedNamespaceBlocks(ctx context.Context) map[string]rschema.Block {
	blocks := shared.TimeoutsBlocks(ctx, shared.OpTimeouts{Create: managedNamespaceCreateTimeout, Update: managedNamespaceUpdateTimeout, Delete: managedNamespaceDeleteTimeout})
	quantity := func(what string) rschema.StringAttribute {
		return rschema.StringAttribute{Optional: true, Description: what + " of the namespace, a Kubernetes quantity (`2`, `500m`, `8Gi`)."}
	}
	blocks["resource_quota"] = rschema.SingleNestedBlock{
		Description: "The namespace's default ResourceQuota `" + managednamespace.QuotaName + "`: at least one of its attributes. " +
			"Omitted, no quota is written.",
		Attributes: map[string]rschema.Attribute{
			"cpu_request":    quantity("The total CPU requests (`requests.cpu`)"),
			"cpu_limit":      quantity("The total CPU limits (`limits.cpu`)"),
			"memory_request": quantity("The total memory requests (`requests.memory`)"),
			"memory_limit":   quantity("The total memory limits (`limits.memory`)"),
		},
	}
	rule := func(what string) rschema.StringAttribute {
		return rschema.StringAttribute{
			Optional: true,
			Description: what + " traffic of the namespace's pods: `AllowAll`, `DenyAll` or `AllowSameNamespace` (from or to pods " +
				"of the namespace only). Unset, the policy does not restrict it.",
			Validators: []validator.String{stringvalidator.OneOf(fleetapi.PolicyRuleAllowAll, fleetapi.PolicyRuleDenyAll, fleetapi.PolicyRuleAllowSameNS)},
		}
	}
	blocks["network_policy"] = rschema.SingleNestedBlock{
		Description: "The namespace's default NetworkPolicy `" + managednamespace.NetworkPolicyName + "`, selecting every pod of " +
			"the namespace: at least one of `ingress` and `egress`. Omitted, no network policy is written.",
		Attributes: map[string]rschema.Attribute{"ingress": rule("Incoming"), "egress": rule("Outgoing")},
	}
	blocks["placement"] = rschema.SingleNestedBlock{
		Description: "Which members the namespace is placed on: the generated placement's policy. Omitted, every joined " +
			"member (PickAll).",
		Attributes: map[string]rschema.Attribute{
			"placement_type": rschema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(string(placementv1.PickAllPlacementType)),
				Description: "`PickAll` (every member that passes the required selectors and tolerations) or `PickFixed` " +
					"(`cluster_names`). Immutable: KubeFleet rejects a change, so a plan that changes it fails. Default: `PickAll`.",
				Validators: []validator.String{stringvalidator.OneOf(string(placementv1.PickAllPlacementType), string(placementv1.PickFixedPlacementType))},
			},
			"cluster_names": rschema.ListAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "PickFixed, required: the members to place on (unique, at most 100). A name that is not a member " +
					"of the fleet fails the plan.",
				Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.NoNullValues()},
			},
		},
		Blocks: map[string]rschema.Block{
			"required_cluster_selector": placementRequiredSelectorBlock("PickAll: a term a member must match; repeated, the terms " +
				"are ORed (at most 10) and a member must match at least one. Within a term, `labels`, `label_expression` and " +
				"`property_expression` are ANDed."),
			"toleration": placementTolerationBlock("PickAll: a taint of members this namespace tolerates; repeat the block for " +
				"more (at most 100). Append-only: KubeFleet rejects removing or changing one, so such a plan fails."),
		},
	}
	return blocks
}

// managedNamespacePreviewAttribute is fleet_placement's preview without override_snapshots: the
// generated placement's overrides are not this resource's.
func managedNamespacePreviewAttribute() rschema.SingleNestedAttribute {
	a := placementPreviewAttribute()
	a.Attributes = maps.Clone(a.Attributes)
	delete(a.Attributes, "override_snapshots")
	a.Description = "Which members KubeFleet's scheduler will place the namespace on, computed at plan from the hub's member " +
		"clusters (and, for an existing namespace, its generated placement's current picks) by the same rules as the hub agent " +
		"(v0.18.9). Filled when the managed namespace is created or its configuration changes; unknown, with a warning, while an " +
		"input is unknown. Counts are always exact; the per-member lists hold at most " + fmt.Sprint(preview.SummaryListLimit) +
		" members each unless the provider's `preview_detail` is `full`."
	return a
}

var (
	managedNamespacePreviewAttrTypes = func() map[string]attr.Type {
		t := maps.Clone(placementPreviewAttrTypes)
		delete(t, "override_snapshots")
		return t
	}()
	namespaceObjectType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"kind": types.StringType, "name": types.StringType, "yaml": types.StringType,
	}}
)
