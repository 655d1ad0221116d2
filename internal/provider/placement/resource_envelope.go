package placement

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	corev1 "k8s.io/api/core/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/envelope"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ resource.ResourceWithValidateConfig = (*envelopeResource)(nil)

// envelopeResource is fleet_envelope: a KubeFleet v0.14.0 envelope ConfigMap on the hub.
type envelopeResource struct{ shared.ResourceBase }

var (
	// A namespace is a DNS label; a ConfigMap's name a DNS subdomain (apimachinery's validation).
	dnsLabelRe     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomainRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

func (r *envelopeResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = rschema.Schema{
		Description: "A KubeFleet envelope on the fleet hub: a ConfigMap annotated `" + envelope.Annotation + "` whose data " +
			"holds Kubernetes objects. A `fleet_placement` that selects the envelope's namespace places the objects on its member " +
			"clusters (in a Work of their own) instead of the ConfigMap, and the objects are never created on the hub: use it for " +
			"objects that would act on the hub itself, such as webhook configurations, ClusterRoles or resource quotas. " +
			"The ConfigMap's namespace must exist on the hub.",
		Attributes: map[string]rschema.Attribute{
			"id": rschema.StringAttribute{Computed: true, Description: "`<namespace>/<name>`."},
			"namespace": rschema.StringAttribute{
				Required: true, Description: "The hub namespace of the envelope ConfigMap (it must exist). Changing it replaces the envelope.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 63),
					stringvalidator.RegexMatches(dnsLabelRe, "must be lower-case letters, digits and '-', starting and ending with a letter or digit"),
				},
			},
			"name": rschema.StringAttribute{
				Required: true, Description: "The envelope ConfigMap's name. Changing it replaces the envelope.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 253),
					stringvalidator.RegexMatches(dnsSubdomainRe, "must be lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"),
				},
			},
			"manifests": rschema.ListAttribute{
				Required: true, ElementType: types.StringType,
				Description: "The objects to place, each element a YAML or JSON document (`yamlencode({...})`, `jsonencode({...})`, " +
					"`file(\"webhook.yaml\")`) or several YAML documents separated by `---` lines. Every document must be a Kubernetes " +
					"object with `apiVersion`, `kind` and `metadata.name`, and no two may name the same object; checked at validate. " +
					"Each document is stored as one ConfigMap data value (KubeFleet converts every value as one object). Updated in place; " +
					"refresh reads them back from the hub, and a difference only in formatting is no change.",
				Validators: []validator.List{listvalidator.SizeAtLeast(1)},
			},
			"data_keys": rschema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				Description: "The ConfigMap's data keys, in manifest order: `manifest-000.yaml`, …, or `manifest-000-00.yaml`, … " +
					"for an element of several documents. Null after refresh when the ConfigMap on the hub has lost its envelope " +
					"annotation (KubeFleet would then place the ConfigMap itself); the next apply restores it.",
			},
		},
	}
}

// ValidateConfig parses every known manifest: errors name the element (`manifests[1]`).
func (r *envelopeResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var manifests types.List
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("manifests"), &manifests)...)
	if resp.Diagnostics.HasError() {
		return
	}
	parseManifests(manifests, &resp.Diagnostics)
}

// ModifyPlan computes data_keys from the manifests and, for a new envelope, checks that no
// ConfigMap of that name is on the hub already.
func (r *envelopeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan envelopeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var d diag.Diagnostics
	docs, known := parseManifests(plan.Manifests, &d)
	keys := types.ListUnknown(types.StringType)
	if known && !d.HasError() {
		keys = stringList(envelope.Keys(docs))
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("data_keys"), keys)...)
	if plan.Namespace.IsUnknown() || plan.Name.IsUnknown() {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), types.StringUnknown())...)
		return
	}
	ns, name := plan.Namespace.ValueString(), plan.Name.ValueString()
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), envelopeID(ns, name))...)
	var state envelopeModel
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	}
	// A new ConfigMap: created, or replaced by a new namespace or name.
	if r.Clients != nil && (state.Namespace.ValueString() != ns || state.Name.ValueString() != name) {
		r.checkNotOnHub(ctx, ns, name, &resp.Diagnostics)
	}
}

// checkNotOnHub fails the plan of a new envelope whose ConfigMap exists already (create would fail).
func (r *envelopeResource) checkNotOnHub(ctx context.Context, namespace, name string, diags *diag.Diagnostics) {
	h, err := r.Clients.HubAPI(ctx)
	if err != nil {
		if !engine.IsConfigUnknown(err) {
			shared.AddBackendError(diags, "Reaching the fleet hub", err)
		}
		return
	}
	switch _, err := h.Envelope(ctx, namespace, name); {
	case err == nil:
		diags.AddAttributeError(path.Root("name"), "ConfigMap already exists",
			fmt.Sprintf("The hub already has a ConfigMap %s/%s: import it (terraform import with ID %q), or choose another name.", namespace, name, envelopeID(namespace, name)))
	case !hub.IsNotFound(err):
		diags.AddError("Reading the envelope", fmt.Sprintf("Reading ConfigMap %s/%s on the hub: %v", namespace, name, err))
	}
}

func (r *envelopeResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ns, name, ok := strings.Cut(req.ID, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected <namespace>/<name> of the envelope ConfigMap, got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), envelopeID(ns, name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), ns)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
}

func (r *envelopeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan envelopeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	h, data := r.prepare(ctx, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ns, name := plan.Namespace.ValueString(), plan.Name.ValueString()
	if _, err := h.CreateEnvelope(ctx, ns, name, data); err != nil {
		switch {
		case hub.IsAlreadyExists(err):
			resp.Diagnostics.AddAttributeError(path.Root("name"), "ConfigMap already exists",
				fmt.Sprintf("The hub already has a ConfigMap %s/%s: import it (terraform import with ID %q), or choose another name.", ns, name, envelopeID(ns, name)))
		case hub.IsNotFound(err):
			resp.Diagnostics.AddAttributeError(path.Root("namespace"), "Namespace not found",
				fmt.Sprintf("The hub has no namespace %q: create it first (for example with the kubernetes provider's kubernetes_namespace_v1 against the hub): %v", ns, err))
		default:
			resp.Diagnostics.AddError("Creating the envelope", fmt.Sprintf("Creating ConfigMap %s/%s on the hub: %v", ns, name, err))
		}
		return
	}
	tflog.Info(ctx, "envelope created", map[string]any{"namespace": ns, "name": name, "keys": len(data)})
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *envelopeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state envelopeModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	h, ok := shared.HubAPI(ctx, r.Clients, &resp.Diagnostics)
	if !ok {
		return
	}
	ns, name := state.Namespace.ValueString(), state.Name.ValueString()
	cm, err := h.Envelope(ctx, ns, name)
	if err != nil {
		if shared.RemoveGone(ctx, resp, hub.IsNotFound(err), "envelope", map[string]any{"namespace": ns, "name": name}) {
			return
		}
		resp.Diagnostics.AddError("Reading the envelope", fmt.Sprintf("Reading ConfigMap %s/%s on the hub: %v", ns, name, err))
		return
	}
	state.ID = types.StringValue(envelopeID(ns, name))
	var prior []string
	if !state.Manifests.IsNull() && !state.Manifests.IsUnknown() {
		resp.Diagnostics.Append(state.Manifests.ElementsAs(ctx, &prior, false)...)
	}
	manifests, keys := envelopeFromHub(cm, prior)
	state.Manifests = stringList(manifests)
	state.DataKeys = stringList(keys)
	if !hub.IsEnvelope(cm) {
		tflog.Warn(ctx, "ConfigMap lost its envelope annotation", map[string]any{"namespace": ns, "name": name, "annotation": envelope.Annotation})
		state.DataKeys = types.ListNull(types.StringType)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *envelopeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan envelopeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	h, data := r.prepare(ctx, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ns, name := plan.Namespace.ValueString(), plan.Name.ValueString()
	if _, err := h.UpdateEnvelope(ctx, ns, name, data); err != nil {
		resp.Diagnostics.AddError("Updating the envelope", fmt.Sprintf("Updating ConfigMap %s/%s on the hub: %v", ns, name, err))
		return
	}
	tflog.Info(ctx, "envelope updated", map[string]any{"namespace": ns, "name": name, "keys": len(data)})
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *envelopeResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state envelopeModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	h, ok := shared.HubAPI(ctx, r.Clients, &resp.Diagnostics)
	if !ok {
		return
	}
	ns, name := state.Namespace.ValueString(), state.Name.ValueString()
	if err := h.DeleteEnvelope(ctx, ns, name); err != nil {
		resp.Diagnostics.AddError("Deleting the envelope", fmt.Sprintf("Deleting ConfigMap %s/%s on the hub: %v", ns, name, err))
		return
	}
	tflog.Info(ctx, "envelope deleted", map[string]any{"namespace": ns, "name": name})
}

// ---- models ----

type envelopeModel struct {
	ID        types.String `tfsdk:"id"`
	Namespace types.String `tfsdk:"namespace"`
	Name      types.String `tfsdk:"name"`
	Manifests types.List   `tfsdk:"manifests"`
	DataKeys  types.List   `tfsdk:"data_keys"`
}

// ---- helpers ----

func envelopeID(namespace, name string) string { return namespace + "/" + name }

// prepare reaches the hub and builds the ConfigMap's data from the planned manifests, setting id
// and data_keys.
func (r *envelopeResource) prepare(ctx context.Context, plan *envelopeModel, diags *diag.Diagnostics) (*hub.Client, map[string]string) {
	docs, known := parseManifests(plan.Manifests, diags)
	if diags.HasError() {
		return nil, nil
	}
	if !known {
		diags.AddAttributeError(path.Root("manifests"), "Manifests unknown", "The manifests are still unknown at apply; this is a bug in the provider or in Terraform.")
		return nil, nil
	}
	h, ok := shared.HubAPI(ctx, r.Clients, diags)
	if !ok {
		return nil, nil
	}
	plan.ID = types.StringValue(envelopeID(plan.Namespace.ValueString(), plan.Name.ValueString()))
	plan.DataKeys = stringList(envelope.Keys(docs))
	return h, envelope.Data(docs)
}

// parseManifests parses the list's elements, reporting errors at their paths (manifests[i]);
// known is false when the list or an element is unknown (those are skipped).
func parseManifests(list types.List, diags *diag.Diagnostics) (docs [][]envelope.Document, known bool) {
	if list.IsNull() {
		return nil, true
	}
	if list.IsUnknown() {
		return nil, false
	}
	known = true
	root := path.Root("manifests")
	for i, el := range list.Elements() {
		s, ok := el.(types.String)
		if !ok || s.IsUnknown() {
			known = false
			docs = append(docs, nil)
			continue
		}
		if s.IsNull() {
			diags.AddAttributeError(root.AtListIndex(i), "Invalid manifest", "A manifest must not be null.")
			docs = append(docs, nil)
			continue
		}
		d, err := envelope.Split(s.ValueString())
		if err != nil {
			diags.AddAttributeError(root.AtListIndex(i), "Invalid manifest", err.Error())
		}
		docs = append(docs, d)
	}
	if diags.HasError() {
		return docs, known
	}
	if at, first, dup := envelope.Duplicate(docs); dup {
		diags.AddAttributeError(root.AtListIndex(at[0]), "Duplicate object",
			fmt.Sprintf("%s%s is also in manifests[%d]%s: KubeFleet would apply both to the same object.",
				docs[at[0]][at[1]].ID, docPosition(docs[at[0]], at[1]), first[0], docPosition(docs[first[0]], first[1])))
	}
	if known {
		if n := envelope.DataBytes(envelope.Data(docs)); n > envelope.MaxDataBytes {
			diags.AddAttributeError(root, "Envelope too large",
				fmt.Sprintf("The manifests take %d bytes; a ConfigMap holds at most %d (1 MiB). Split them over several envelopes.", n, envelope.MaxDataBytes))
		}
	}
	return docs, known
}

func docPosition(docs []envelope.Document, j int) string {
	if len(docs) == 1 {
		return ""
	}
	return fmt.Sprintf(" (document %d of %d)", j+1, len(docs))
}

// envelopeFromHub turns the ConfigMap's data back into manifests and their keys: a manifest that
// holds the same objects as the prior state's element at its position keeps the prior text, so
// formatting never shows as drift.
func envelopeFromHub(cm *corev1.ConfigMap, prior []string) (manifests, keys []string) {
	texts, keyGroups := envelope.Group(cm.Data)
	for i, docs := range texts {
		text := envelope.Join(docs)
		if i < len(prior) && envelope.Equal(prior[i], docs) {
			text = prior[i]
		}
		manifests = append(manifests, text)
		keys = append(keys, keyGroups[i]...)
	}
	return manifests, keys
}

func stringList(ss []string) types.List {
	if ss == nil {
		ss = []string{}
	}
	elems := make([]types.String, len(ss))
	for i, s := range ss {
		elems[i] = types.StringValue(s)
	}
	l, _ := types.ListValueFrom(context.Background(), types.StringType, elems)
	return l
}
