package placement

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/envelope"
)

// fleet_envelope's state of schema version 0: the ConfigMap envelope of KubeFleet v0.14, which
// v0.18.9 places as a plain ConfigMap. The upgrade keeps the manifests and names the ConfigMap in
// replaces_configmap; the next apply writes the envelope object and deletes the ConfigMap.

// envelopeModelV0 is the state of schema version 0.
type envelopeModelV0 struct {
	ID        types.String `tfsdk:"id"`
	Namespace types.String `tfsdk:"namespace"`
	Name      types.String `tfsdk:"name"`
	Manifests types.List   `tfsdk:"manifests"`
	DataKeys  types.List   `tfsdk:"data_keys"`
}

func envelopeSchemaV0() *rschema.Schema {
	return &rschema.Schema{
		Attributes: map[string]rschema.Attribute{
			"id":        rschema.StringAttribute{Computed: true},
			"namespace": rschema.StringAttribute{Required: true},
			"name":      rschema.StringAttribute{Required: true},
			"manifests": rschema.ListAttribute{Required: true, ElementType: types.StringType},
			"data_keys": rschema.ListAttribute{Computed: true, ElementType: types.StringType},
		},
	}
}

func (r *envelopeResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{
		0: {PriorSchema: envelopeSchemaV0(), StateUpgrader: upgradeEnvelopeV0},
	}
}

// upgradeEnvelopeV0 turns a ConfigMap envelope's state into the envelope that replaces it: a
// ClusterResourceEnvelope of the same name when no wrapped object has a metadata.namespace, else a
// ResourceEnvelope in the ConfigMap's namespace.
func upgradeEnvelopeV0(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	var old envelopeModelV0
	resp.Diagnostics.Append(req.State.Get(ctx, &old)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var manifests []string
	if !old.Manifests.IsNull() && !old.Manifests.IsUnknown() {
		resp.Diagnostics.Append(old.Manifests.ElementsAs(ctx, &manifests, false)...)
	}
	cmNS, name := old.Namespace.ValueString(), old.Name.ValueString()
	ns := legacyNamespace(cmNS, manifests)
	upgraded := envelopeModel{
		ID:                types.StringValue(envelopeID(ns.ValueString(), name)),
		Namespace:         ns,
		Name:              old.Name,
		Manifests:         old.Manifests,
		Kind:              types.StringValue(envelope.Kind(ns.ValueString())),
		DataKeys:          old.DataKeys,
		ReplacesConfigMap: types.StringValue(cmNS + "/" + name),
	}
	if upgraded.DataKeys.IsUnknown() {
		upgraded.DataKeys = types.ListNull(types.StringType)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, upgraded)...)
}
