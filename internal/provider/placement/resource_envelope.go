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
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/envelope"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var (
	_ resource.ResourceWithValidateConfig = (*envelopeResource)(nil)
	_ resource.ResourceWithUpgradeState   = (*envelopeResource)(nil)
)

// envelopeResource is fleet_envelope: a KubeFleet v0.18.9 ClusterResourceEnvelope (no namespace) or
// ResourceEnvelope (a namespace) on the hub.
type envelopeResource struct{ shared.ResourceBase }

var (
	// A namespace is a DNS label; an envelope's name a DNS subdomain (apimachinery's validation).
	dnsLabelRe     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomainRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// envelopeSchemaVersion 1: the envelope objects of KubeFleet v0.18.9; 0 was the ConfigMap envelope
// of v0.14.0 (resource_envelope_upgrade.go).
const envelopeSchemaVersion = 1

func (r *envelopeResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = rschema.Schema{
		Version: envelopeSchemaVersion,
		Description: "A KubeFleet envelope on the fleet hub: a `ClusterResourceEnvelope` (without `namespace`: cluster-scoped " +
			"objects such as webhook configurations and ClusterRoles) or a `ResourceEnvelope` (with `namespace`: objects of that " +
			"namespace, such as ResourceQuotas or PodDisruptionBudgets), `placement.kubernetes-fleet.io/v1beta1`, as KubeFleet " +
			"v0.18.9 has them. A `fleet_placement` that selects the envelope places the wrapped objects on its member clusters, " +
			"in a Work of their own, and the objects are never created on the hub: use it for objects that would act on the hub " +
			"itself. A `ClusterResourceEnvelope` is selected by name (a `resource_selector` block with `group = \"placement.kubernetes-fleet.io\"`, " +
			"`version = \"v1beta1\"`, `kind = \"ClusterResourceEnvelope\"` and its `name`), a `ResourceEnvelope` with its namespace. " +
			"What KubeFleet would refuse to place (a namespaced object in a `ClusterResourceEnvelope`, an object without " +
			"namespace or of another namespace in a `ResourceEnvelope`, more than 50 objects) fails at validate or plan, " +
			"naming the manifest. Secrets are refused: see `manifests`. Until provider versions for KubeFleet v0.14 this " +
			"resource wrote the ConfigMap envelope that v0.18.9 no longer unwraps; such state is upgraded (see `replaces_configmap`).",
		Attributes: map[string]rschema.Attribute{
			"id": rschema.StringAttribute{Computed: true, Description: "`<name>` for a `ClusterResourceEnvelope`, `<namespace>/<name>` for a `ResourceEnvelope`."},
			"namespace": rschema.StringAttribute{
				Optional: true,
				Description: "The hub namespace of a `ResourceEnvelope` (it must exist); every wrapped object must have this " +
					"`metadata.namespace`. Without it the envelope is a `ClusterResourceEnvelope`, and no wrapped object may have a " +
					"`metadata.namespace`. Changing it replaces the envelope.",
				PlanModifiers: shared.RequiresReplace(),
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 63),
					stringvalidator.RegexMatches(dnsLabelRe, "must be lower-case letters, digits and '-', starting and ending with a letter or digit"),
				},
			},
			"name": shared.ReplacingAttribute("The envelope's name. Changing it replaces the envelope.", stringvalidator.LengthBetween(1, 253),
				stringvalidator.RegexMatches(dnsSubdomainRe, "must be lower-case letters, digits, '-' and '.', starting and ending with a letter or digit")),
			"manifests": rschema.ListAttribute{
				Required: true, ElementType: types.StringType,
				Description: "The objects to place, each element a YAML or JSON document (`yamlencode({...})`, `jsonencode({...})`, " +
					"`file(\"webhook.yaml\")`) or several YAML documents separated by `---` lines. Every document must be a Kubernetes " +
					"object with `apiVersion`, `kind` and `metadata.name`, no two may name the same object, and there may be at most " +
					"50; checked at validate. KubeFleet reads an object's scope from its `metadata.namespace` alone. Each document is " +
					"one entry of the envelope's `data`. Updated in place; refresh reads them back from the hub, and a difference only " +
					"in formatting is no change. A `Secret` is refused: the manifests are shown in plans and kept in the state in " +
					"clear text. A Secret is harmless on the hub, so it needs no envelope: create it in a hub namespace (with the " +
					"kubernetes provider, preferably through a write-only attribute) and let a `fleet_placement` select the namespace. " +
					"A Secret put into the envelope outside Terraform is read back without its data.",
				Validators: []validator.List{listvalidator.SizeBetween(1, envelope.MaxManifests)},
			},
			"kind": rschema.StringAttribute{
				Computed: true,
				Description: "`ClusterResourceEnvelope` or `ResourceEnvelope` (group `placement.kubernetes-fleet.io`, version " +
					"`v1beta1`): for a placement's `resource_selector`.",
			},
			"data_keys": rschema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				Description: "The envelope's data keys, in manifest order: `manifest-000.yaml`, …, or `manifest-000-00.yaml`, … " +
					"for an element of several documents.",
			},
			"replaces_configmap": rschema.StringAttribute{
				Computed: true,
				Description: "`<namespace>/<name>` of the KubeFleet v0.14 envelope ConfigMap this envelope replaces, which " +
					"KubeFleet v0.18.9 places as a plain ConfigMap: set by the upgrade of state written by earlier provider " +
					"versions, or by an import of `configmap/<namespace>/<name>`. The next apply creates the envelope and " +
					"deletes the ConfigMap; then it is null.",
			},
		},
	}
}

// ValidateConfig parses every known manifest and checks it against the envelope's scope when the
// namespace is known: errors name the element (`manifests[1]`).
func (r *envelopeResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg envelopeModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	checkManifests(cfg.Namespace, cfg.Manifests, &resp.Diagnostics)
}

// ModifyPlan computes id, kind and data_keys from the configuration, repeats the checks, and, for
// a new envelope, checks that none of that name is on the hub already.
func (r *envelopeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan envelopeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	docs, known := checkManifests(plan.Namespace, plan.Manifests, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	keys := types.ListUnknown(types.StringType)
	if known {
		keys = stringList(envelope.Keys(docs))
		if r.Clients != nil && !plan.Namespace.IsUnknown() {
			r.checkKindScopes(ctx, docs, &resp.Diagnostics)
			if resp.Diagnostics.HasError() {
				return
			}
		}
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("data_keys"), keys)...)
	// Apply migrates a ConfigMap envelope: afterwards nothing is left to replace.
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("replaces_configmap"), types.StringNull())...)
	if plan.Namespace.IsUnknown() || plan.Name.IsUnknown() {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), types.StringUnknown())...)
		if plan.Namespace.IsUnknown() {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("kind"), types.StringUnknown())...)
		}
		return
	}
	ns, name := plan.Namespace.ValueString(), plan.Name.ValueString()
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("kind"), envelope.Kind(ns))...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), envelopeID(ns, name))...)
	var state envelopeModel
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	}
	// A new envelope: created, or replaced by a new namespace or name.
	if r.Clients != nil && (req.State.Raw.IsNull() || state.Namespace.ValueString() != ns || state.Name.ValueString() != name) {
		r.checkNotOnHub(ctx, ns, name, &resp.Diagnostics)
	}
}

// checkKindScopes fails the plan of an object whose kind's scope, as the hub's discovery knows it,
// contradicts its metadata.namespace: KubeFleet places it, and the members cannot apply it.
func (r *envelopeResource) checkKindScopes(ctx context.Context, docs [][]envelope.Document, diags *diag.Diagnostics) {
	h, ok := backend.PlanHubAPI(ctx, r.Clients, diags)
	if !ok {
		return
	}
	var gvks []schema.GroupVersionKind
	for _, ds := range docs {
		for _, d := range ds {
			gvks = append(gvks, schema.GroupVersionKind{Group: d.ID.Group, Version: d.ID.Version, Kind: d.ID.Kind})
		}
	}
	namespaced, err := h.Namespaced(gvks)
	if err != nil {
		backend.AddBackendError(diags, "Reading the hub's API", err)
		return
	}
	for i, ds := range docs {
		for j, d := range ds {
			scoped, ok := namespaced[schema.GroupVersionKind{Group: d.ID.Group, Version: d.ID.Version, Kind: d.ID.Kind}]
			if !ok {
				continue
			}
			if msg := envelope.ScopeMismatch(scoped, d.ID); msg != "" {
				diags.AddAttributeError(path.Root("manifests").AtListIndex(i), "Object in the wrong scope",
					fmt.Sprintf("manifests[%d]%s: %s", i, docPosition(ds, j), msg))
			}
		}
	}
}

// checkNotOnHub fails the plan of a new envelope that exists already (create would fail).
func (r *envelopeResource) checkNotOnHub(ctx context.Context, namespace, name string, diags *diag.Diagnostics) {
	h, ok := backend.PlanHubAPI(ctx, r.Clients, diags)
	if !ok {
		return
	}
	kind := envelope.Kind(namespace)
	switch _, err := h.Envelope(ctx, namespace, name); {
	case err == nil:
		diags.AddAttributeError(path.Root("name"), kind+" already exists",
			fmt.Sprintf("The hub already has a %s %s: import it (terraform import with ID %q), or choose another name.", kind, envelopeID(namespace, name), envelopeID(namespace, name)))
	case !hub.IsNotFound(err):
		diags.AddError("Reading the envelope", fmt.Sprintf("Reading %s %s on the hub: %v", kind, envelopeID(namespace, name), err))
	}
}

// ImportState takes `<name>` (a ClusterResourceEnvelope), `<namespace>/<name>` (a
// ResourceEnvelope) or `configmap/<namespace>/<name>` (a KubeFleet v0.14 ConfigMap envelope, which
// the next apply migrates).
func (r *envelopeResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	parts := strings.Split(req.ID, "/")
	var ns, name, legacy string
	switch {
	case len(parts) == 1 && parts[0] != "":
		name = parts[0]
	case len(parts) == 2 && parts[0] != "" && parts[1] != "":
		ns, name = parts[0], parts[1]
	case len(parts) == 3 && parts[0] == "configmap" && parts[1] != "" && parts[2] != "":
		ns, name, legacy = parts[1], parts[2], parts[1]+"/"+parts[2]
	default:
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected <name> of a ClusterResourceEnvelope, <namespace>/<name> of a ResourceEnvelope, or configmap/<namespace>/<name> of a KubeFleet v0.14 envelope ConfigMap to migrate; got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), envelopeID(ns, name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), shared.StringOrNull(ns))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("kind"), envelope.Kind(ns))...)
	if legacy != "" {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("replaces_configmap"), legacy)...)
	}
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
	if err := h.CreateEnvelope(ctx, ns, name, data); err != nil {
		addCreateError(&resp.Diagnostics, ns, name, err)
		return
	}
	tflog.Info(ctx, "envelope created", map[string]any{"kind": envelope.Kind(ns), "namespace": ns, "name": name, "keys": len(data)})
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func addCreateError(diags *diag.Diagnostics, ns, name string, err error) {
	kind := envelope.Kind(ns)
	switch {
	case hub.IsAlreadyExists(err):
		diags.AddAttributeError(path.Root("name"), kind+" already exists",
			fmt.Sprintf("The hub already has a %s %s: import it (terraform import with ID %q), or choose another name.", kind, envelopeID(ns, name), envelopeID(ns, name)))
	case hub.IsNotFound(err) && ns != "":
		diags.AddAttributeError(path.Root("namespace"), "Namespace not found",
			fmt.Sprintf("The hub has no namespace %q: create it first (for example with the kubernetes provider's kubernetes_namespace_v1 against the hub): %v", ns, err))
	default:
		addEnvelopeError(diags, "Creating", ns, name, err)
	}
}

// addEnvelopeError reports the failure of op ("Creating", "Reading", "Updating", "Deleting") on an
// envelope.
func addEnvelopeError(diags *diag.Diagnostics, op, ns, name string, err error) {
	diags.AddError(op+" the envelope", fmt.Sprintf("%s %s %s on the hub: %v", op, envelope.Kind(ns), envelopeID(ns, name), err))
}

func (r *envelopeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	backend.WithHubModel(ctx, r.Clients, req.State, &resp.Diagnostics, func(ctx context.Context, state *envelopeModel, h *hub.Client) {
		ns, name := state.Namespace.ValueString(), state.Name.ValueString()
		fields := map[string]any{"kind": envelope.Kind(ns), "namespace": ns, "name": name}
		var prior []string
		if !state.Manifests.IsNull() && !state.Manifests.IsUnknown() {
			resp.Diagnostics.Append(state.Manifests.ElementsAs(ctx, &prior, false)...)
		}
		env, err := h.Envelope(ctx, ns, name)
		switch {
		case err == nil:
			manifests, keys := envelopeFromHub(envelope.Texts(env.GetData()), prior)
			state.Manifests, state.DataKeys = stringList(manifests), stringList(keys)
		case hub.IsNotFound(err) && !state.ReplacesConfigMap.IsNull():
			// Not migrated yet: the ConfigMap envelope is what is on the hub.
			if !r.readConfigMap(ctx, h, state, prior, &resp.Diagnostics) {
				backend.RemoveGone(ctx, resp, true, "envelope ConfigMap", fields)
				return
			}
		default:
			backend.ReadGoneOrFailed(ctx, resp, err, "envelope", fields, func(err error) {
				addEnvelopeError(&resp.Diagnostics, "Reading", ns, name, err)
			})
			return
		}
		ns = state.Namespace.ValueString() // an imported ConfigMap envelope's scope follows its objects
		state.ID = types.StringValue(envelopeID(ns, name))
		state.Kind = types.StringValue(envelope.Kind(ns))
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	})
}

// readConfigMap reads the ConfigMap envelope state replaces into state's manifests; false when it
// is gone.
func (r *envelopeResource) readConfigMap(ctx context.Context, h *hub.Client, state *envelopeModel, prior []string, diags *diag.Diagnostics) bool {
	cmNS, cmName, _ := strings.Cut(state.ReplacesConfigMap.ValueString(), "/")
	cm, err := h.ConfigMapEnvelope(ctx, cmNS, cmName)
	if hub.IsNotFound(err) {
		return false
	}
	if err != nil {
		diags.AddError("Reading the envelope ConfigMap", fmt.Sprintf("Reading ConfigMap %s/%s on the hub: %v", cmNS, cmName, err))
		return true
	}
	manifests, keys := envelopeFromHub(cm.Data, prior)
	state.Manifests, state.DataKeys = stringList(manifests), stringList(keys)
	if len(prior) == 0 {
		// Imported: the scope follows the objects, as the state upgrade decides it.
		state.Namespace = legacyNamespace(cmNS, manifests)
	}
	return true
}

func (r *envelopeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state envelopeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	h, data := r.prepare(ctx, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ns, name := plan.Namespace.ValueString(), plan.Name.ValueString()
	err := h.UpdateEnvelope(ctx, ns, name, data)
	if hub.IsNotFound(err) && !state.ReplacesConfigMap.IsNull() {
		// Migrating a ConfigMap envelope: its envelope object is new.
		if err = h.CreateEnvelope(ctx, ns, name, data); err != nil {
			addCreateError(&resp.Diagnostics, ns, name, err)
			return
		}
	}
	if err != nil {
		addEnvelopeError(&resp.Diagnostics, "Updating", ns, name, err)
		return
	}
	tflog.Info(ctx, "envelope updated", map[string]any{"kind": envelope.Kind(ns), "namespace": ns, "name": name, "keys": len(data)})
	if !deleteReplacedConfigMap(ctx, h, state.ReplacesConfigMap, &resp.Diagnostics) {
		// The envelope is written; the ConfigMap is still to delete.
		plan.ReplacesConfigMap = state.ReplacesConfigMap
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

// deleteReplacedConfigMap deletes the ConfigMap envelope an envelope replaces (if any); false when
// that failed (reported).
func deleteReplacedConfigMap(ctx context.Context, h *hub.Client, replaces types.String, diags *diag.Diagnostics) bool {
	if replaces.IsNull() || replaces.IsUnknown() {
		return true
	}
	ns, name, _ := strings.Cut(replaces.ValueString(), "/")
	if err := h.DeleteConfigMapEnvelope(ctx, ns, name); err != nil {
		diags.AddError("Deleting the replaced envelope ConfigMap",
			fmt.Sprintf("Deleting ConfigMap %s/%s, the KubeFleet v0.14 envelope this envelope replaces: %v. The next apply tries again.", ns, name, err))
		return false
	}
	tflog.Info(ctx, "replaced envelope ConfigMap deleted", map[string]any{"namespace": ns, "name": name})
	return true
}

func (r *envelopeResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	backend.WithHubModel(ctx, r.Clients, req.State, &resp.Diagnostics, func(ctx context.Context, state *envelopeModel, h *hub.Client) {
		ns, name := state.Namespace.ValueString(), state.Name.ValueString()
		if err := h.DeleteEnvelope(ctx, ns, name); err != nil {
			addEnvelopeError(&resp.Diagnostics, "Deleting", ns, name, err)
			return
		}
		deleteReplacedConfigMap(ctx, h, state.ReplacesConfigMap, &resp.Diagnostics)
		tflog.Info(ctx, "envelope deleted", map[string]any{"kind": envelope.Kind(ns), "namespace": ns, "name": name})
	})
}

// ---- models ----

type envelopeModel struct {
	ID                types.String `tfsdk:"id"`
	Namespace         types.String `tfsdk:"namespace"`
	Name              types.String `tfsdk:"name"`
	Manifests         types.List   `tfsdk:"manifests"`
	Kind              types.String `tfsdk:"kind"`
	DataKeys          types.List   `tfsdk:"data_keys"`
	ReplacesConfigMap types.String `tfsdk:"replaces_configmap"`
}

// ---- helpers ----

// envelopeID is `<name>` for a ClusterResourceEnvelope, `<namespace>/<name>` for a ResourceEnvelope.
func envelopeID(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// prepare reaches the hub and builds the envelope's data from the planned manifests, setting id,
// kind and data_keys.
func (r *envelopeResource) prepare(ctx context.Context, plan *envelopeModel, diags *diag.Diagnostics) (*hub.Client, envelopeData) {
	docs, known := checkManifests(plan.Namespace, plan.Manifests, diags)
	if diags.HasError() {
		return nil, nil
	}
	if !known {
		diags.AddAttributeError(path.Root("manifests"), "Manifests unknown", "The manifests are still unknown at apply; this is a bug in the provider or in Terraform.")
		return nil, nil
	}
	h, ok := backend.HubAPI(ctx, r.Clients, diags)
	if !ok {
		return nil, nil
	}
	ns := plan.Namespace.ValueString()
	plan.ID = types.StringValue(envelopeID(ns, plan.Name.ValueString()))
	plan.Kind = types.StringValue(envelope.Kind(ns))
	plan.DataKeys = stringList(envelope.Keys(docs))
	plan.ReplacesConfigMap = types.StringNull()
	return h, envelope.Data(docs)
}
