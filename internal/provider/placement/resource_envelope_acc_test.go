package placement_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/envelope"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/placement"
)

const (
	envNS        = "envelope-web"
	envName      = "hub-safe"    // the ClusterResourceEnvelope
	envQuotaName = "team-limits" // the ResourceEnvelope in envNS
)

// envMembers are the members the acceptance test's placement selects.
var envMembers = []string{"canary-east", "prod-east-1"}

// envelopeConfig places namespace envNS and a ClusterResourceEnvelope on envMembers: the cluster
// envelope wraps a webhook configuration (yamlencode) and, in one heredoc, a ClusterRole and a
// ClusterRoleBinding with the given verbs; a ResourceEnvelope in envNS wraps a ResourceQuota.
func envelopeConfig(verbs string) string {
	return acctest.ProviderConfig + fmt.Sprintf(`
resource "fleet_envelope" "test" {
  name      = %[3]q
  manifests = [
    yamlencode({
      apiVersion = "admissionregistration.k8s.io/v1"
      kind       = "ValidatingWebhookConfiguration"
      metadata   = { name = "envelope-deny" }
      webhooks   = []
    }),
    <<-EOT
    # read-only access, placed on members only
    apiVersion: rbac.authorization.k8s.io/v1
    kind: ClusterRole
    metadata:
      name: envelope-reader
    rules:
      - apiGroups: [""]
        resources: [pods]
        verbs: %[2]s
    ---
    apiVersion: rbac.authorization.k8s.io/v1
    kind: ClusterRoleBinding
    metadata:
      name: envelope-reader
    roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: envelope-reader}
    subjects: [{kind: Group, name: readers, apiGroup: rbac.authorization.k8s.io}]
    EOT
  ]
}

resource "fleet_envelope" "quota" {
  namespace = %[1]q
  name      = %[4]q
  manifests = [yamlencode({
    apiVersion = "v1"
    kind       = "ResourceQuota"
    metadata   = { name = "pods", namespace = %[1]q }
    spec       = { hard = { pods = "10" } }
  })]
}

resource "fleet_placement" "test" {
  name = %[1]q
  resource_selector {
    version = "v1"
    kind = "Namespace"
    name = %[1]q
  }
  resource_selector {
    group = "placement.kubernetes-fleet.io"
    version = "v1beta1"
    kind = fleet_envelope.test.kind
    name = fleet_envelope.test.name
  }
  policy {
    placement_type = "PickFixed"
    cluster_names = ["canary-east", "prod-east-1"]
  }
  # canary-east's real member agent cannot track a ResourceQuota's availability (NotTrackable): the
  # hub then counts the cluster available only after this period (60 s by default), and rolls each
  # change out one cluster at a time.
  strategy {
    unavailable_period_seconds = 1
  }
  wait_for_rollout = true
  depends_on       = [fleet_envelope.quota]
}
`, envNS, verbs, envName, envQuotaName)
}

type envelopeHub struct{ *hub.Client }

func envelopeHubClient(t *testing.T) envelopeHub {
	return envelopeHub{Client: hub.New(acctest.HubKube(t))}
}

// setData overwrites an envelope's data behind Terraform's back.
func setData(t *testing.T, namespace, name string, data map[string]string) {
	t.Helper()
	ctx := context.Background()
	gvr := schema.GroupVersionResource{Group: "placement.kubernetes-fleet.io", Version: "v1beta1", Resource: "clusterresourceenvelopes"}
	r := acctest.HubKube(t).Dynamic.Resource(gvr)
	if namespace != "" {
		gvr.Resource = "resourceenvelopes"
		r = acctest.HubKube(t).Dynamic.Resource(gvr)
	}
	ri := r.Namespace(namespace)
	u, err := ri.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := map[string]any{}
	for k, v := range data {
		var obj map[string]any
		if err := json.Unmarshal([]byte(v), &obj); err != nil {
			t.Fatal(err)
		}
		d[k] = obj
	}
	u.Object["data"] = d
	if _, err := ri.Update(ctx, u, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// envelopeCarried checks, once the hub agent has caught up, that the envelope namespace/name is on
// the hub, that its Work for every member holds exactly what KubeFleet's work generator makes of its
// data (wantKinds among them), that the placement's other Works do not carry the envelope, and that
// none of the wrapped objects exists on the hub.
func envelopeCarried(h envelopeHub, placementName, namespace, name string, members []string, wantKinds ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		env, err := h.Envelope(ctx, namespace, name)
		if err != nil {
			return fmt.Errorf("envelope %s: %w", name, err)
		}
		want := sortedJSON(envelope.WorkManifests(env.GetData()))
		kinds := map[string]bool{}
		for _, m := range want {
			var o struct{ Kind string }
			_ = json.Unmarshal([]byte(m), &o)
			kinds[o.Kind] = true
		}
		for _, k := range wantKinds {
			if !kinds[k] {
				return fmt.Errorf("the envelope %s carries no %s (kinds %v)", name, k, kinds)
			}
		}
		for _, member := range members {
			var last string
			err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
				works, err := h.EnvelopeWorks(ctx, member, namespace, name)
				if err != nil {
					return false, err
				}
				if len(works) != 1 {
					last = fmt.Sprintf("%d envelope Works", len(works))
					return false, nil
				}
				var raw [][]byte
				for _, m := range works[0].Spec.Workload.Manifests {
					raw = append(raw, m.Raw)
				}
				if got := sortedJSON(raw); !reflect.DeepEqual(got, want) {
					last = fmt.Sprintf("Work %s manifests %v, want %v", works[0].Name, got, want)
					return false, nil
				}
				return true, nil
			})
			if err != nil {
				return fmt.Errorf("the envelope %s's Work for %s: %s: %w", name, member, last, err)
			}
			works, err := h.PlacementWorks(ctx, member, placementName)
			if err != nil {
				return err
			}
			for _, w := range works {
				if _, enveloped := w.Labels[placementv1beta1.EnvelopeTypeLabel]; enveloped {
					continue
				}
				for _, m := range w.Spec.Workload.Manifests {
					var o struct {
						Kind     string
						Metadata struct{ Name string }
					}
					_ = json.Unmarshal(m.Raw, &o)
					if strings.HasSuffix(o.Kind, "Envelope") || kinds[o.Kind] {
						return fmt.Errorf("Work %s for %s places %s %s itself", w.Name, member, o.Kind, o.Metadata.Name)
					}
				}
			}
		}
		return nil
	}
}

// notOnHub checks that none of the wrapped objects exists on the hub.
func notOnHub(h envelopeHub) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		k := h.Kubernetes()
		if _, err := k.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, "envelope-deny", metav1.GetOptions{}); !hub.IsNotFound(err) {
			return fmt.Errorf("ValidatingWebhookConfiguration envelope-deny on the hub: %v", err)
		}
		if _, err := k.RbacV1().ClusterRoles().Get(ctx, "envelope-reader", metav1.GetOptions{}); !hub.IsNotFound(err) {
			return fmt.Errorf("ClusterRole envelope-reader on the hub: %v", err)
		}
		if _, err := k.RbacV1().ClusterRoleBindings().Get(ctx, "envelope-reader", metav1.GetOptions{}); !hub.IsNotFound(err) {
			return fmt.Errorf("ClusterRoleBinding envelope-reader on the hub: %v", err)
		}
		if _, err := k.CoreV1().ResourceQuotas(envNS).Get(ctx, "pods", metav1.GetOptions{}); !hub.IsNotFound(err) {
			return fmt.Errorf("ResourceQuota %s/pods on the hub: %v", envNS, err)
		}
		return nil
	}
}

// sortedJSON is each manifest as normalized JSON, sorted.
func sortedJSON(raw [][]byte) []string {
	out := make([]string, 0, len(raw))
	for _, r := range raw {
		var v any
		if err := json.Unmarshal(r, &v); err != nil {
			out = append(out, string(r))
			continue
		}
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

// workHasVerbs checks that the cluster envelope's Work for every member carries the ClusterRole
// with the verbs (none: no rules).
func workHasVerbs(h envelopeHub, verbs ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, member := range envMembers {
			var last string
			err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
				works, err := h.EnvelopeWorks(ctx, member, "", envName)
				if err != nil || len(works) != 1 {
					last = fmt.Sprintf("%d Works, %v", len(works), err)
					return false, nil
				}
				for _, m := range works[0].Spec.Workload.Manifests {
					var o struct {
						Kind  string
						Rules []struct{ Verbs []string }
					}
					_ = json.Unmarshal(m.Raw, &o)
					if o.Kind == "ClusterRole" {
						got := []string{}
						for _, r := range o.Rules {
							got = append(got, r.Verbs...)
						}
						last = fmt.Sprintf("verbs %v", got)
						return reflect.DeepEqual(got, append([]string{}, verbs...)), nil
					}
				}
				last = "no ClusterRole"
				return false, nil
			})
			if err != nil {
				return fmt.Errorf("the envelope's Work for %s: want ClusterRole verbs %v, %s: %w", member, verbs, last, err)
			}
		}
		return nil
	}
}

// noText is a plan and state check that the text appears nowhere in the plan (the refreshed prior
// state included) or the state.
type noText string

func (s noText) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = s.notIn("plan", req.Plan)
}

func (s noText) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = s.notIn("state", req.State)
}

// notIn says where the text is when v (the plan or the state, as JSON) holds it.
func (s noText) notIn(what string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if strings.Contains(string(b), string(s)) {
		return fmt.Errorf("the %s holds %q", what, string(s))
	}
	return nil
}

// KubeFleet v0.18.9's envelopes end to end: a ClusterResourceEnvelope wrapping a webhook
// configuration, a ClusterRole and its binding, and a ResourceEnvelope wrapping a ResourceQuota:
// the hub holds the envelopes only, and the Works the hub agent generates for every selected member
// carry the objects; what v0.18.9 refuses and Secrets fail at validate with the manifest's index;
// manifests update in place; drift plans an update; a Secret put in by hand never reaches plan or
// state; the envelopes import by name and namespace/name.
func TestAccEnvelope(t *testing.T) {
	const (
		addr      = "fleet_envelope.test"
		quotaAddr = "fleet_envelope.quota"
		password  = "aHVudGVyMg=="
	)
	h := envelopeHubClient(t)
	saved := map[string]map[string]string{}
	keys := knownvalue.ListExact([]knownvalue.Check{
		knownvalue.StringExact("manifest-000.yaml"), knownvalue.StringExact("manifest-001-00.yaml"), knownvalue.StringExact("manifest-001-01.yaml"),
	})
	carried := resource.ComposeTestCheckFunc(
		envelopeCarried(h, envNS, "", envName, envMembers, "ValidatingWebhookConfiguration", "ClusterRole", "ClusterRoleBinding"),
		envelopeCarried(h, envNS, envNS, envQuotaName, envMembers, "ResourceQuota"),
		notOnHub(h),
	)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if _, err := h.Envelope(context.Background(), "", envName); !hub.IsNotFound(err) {
				return fmt.Errorf("ClusterResourceEnvelope after destroy: %v", err)
			}
			if _, err := h.Envelope(context.Background(), envNS, envQuotaName); !hub.IsNotFound(err) {
				return fmt.Errorf("ResourceEnvelope after destroy: %v", err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: acctest.ProviderConfig + `
resource "fleet_envelope" "bad" {
  name      = "bad"
  manifests = [yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = "x" } }), "apiVersion: v1\nmetadata: {name: y}\n"]
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid manifest.*kind: required`),
			},
			{
				// A cluster-scoped object in a ResourceEnvelope, as v0.18.9 refuses it, at its index.
				Config: acctest.ProviderConfig + `
resource "fleet_envelope" "bad" {
  namespace = "envelope-web"
  name      = "bad"
  manifests = [
    yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "x", namespace = "envelope-web" } }),
    yamlencode({ apiVersion = "rbac.authorization.k8s.io/v1", kind = "ClusterRole", metadata = { name = "r" } }),
  ]
}
`,
				PlanOnly:    true,
				ExpectError: acctest.WrappedRegexp(`(?s)Object not allowed in a ResourceEnvelope.*manifests\[1\]: ClusterRole.rbac.authorization.k8s.io/r has no metadata.namespace`),
			},
			{
				// A namespaced object in a ClusterResourceEnvelope.
				Config: acctest.ProviderConfig + `
resource "fleet_envelope" "bad" {
  name      = "bad"
  manifests = [yamlencode({ apiVersion = "v1", kind = "ResourceQuota", metadata = { name = "q", namespace = "envelope-web" } })]
}
`,
				PlanOnly:    true,
				ExpectError: acctest.WrappedRegexp(`(?s)Object not allowed in a ClusterResourceEnvelope.*manifests\[0\]: ResourceQuota/envelope-web/q has metadata.namespace "envelope-web"`),
			},
			{
				// A namespaced kind without metadata.namespace in a ClusterResourceEnvelope: KubeFleet
				// takes it for cluster-scoped; the hub's API knows better, and the plan says so.
				Config: acctest.ProviderConfig + `
resource "fleet_envelope" "bad" {
  name      = "bad"
  manifests = [
    yamlencode({ apiVersion = "rbac.authorization.k8s.io/v1", kind = "ClusterRole", metadata = { name = "r" } }),
    yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "settings" } }),
  ]
}
`,
				PlanOnly:    true,
				ExpectError: acctest.WrappedRegexp(`(?s)Object in the wrong scope.*manifests\[1\]: ConfigMap/settings is of a namespaced kind \(the hub's API says so\)`),
			},
			{
				// A Secret: refused, naming the better path, and its data is not echoed.
				Config: acctest.ProviderConfig + `
resource "fleet_envelope" "bad" {
  namespace = "envelope-web"
  name      = "bad"
  manifests = [yamlencode({ apiVersion = "v1", kind = "Secret", metadata = { name = "db", namespace = "envelope-web" }, data = { password = "` + password + `" } })]
}
`,
				PlanOnly:    true,
				ExpectError: acctest.WrappedRegexp(`(?s)Secret in an envelope.*manifests\[0\]: Secret/envelope-web/db is a Secret.*let a fleet_placement select that namespace`),
			},
			{
				PreConfig: func() { acctest.NewHubClients(t).CreateNamespace(t, envNS) },
				Config:    envelopeConfig(`[get, list]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("data_keys"), keys),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(envName)),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("kind"), knownvalue.StringExact("ClusterResourceEnvelope")),
					plancheck.ExpectKnownValue(quotaAddr, tfjsonpath.New("kind"), knownvalue.StringExact("ResourceEnvelope")),
					plancheck.ExpectKnownValue(quotaAddr, tfjsonpath.New("id"), knownvalue.StringExact(envNS+"/"+envQuotaName)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(addr, tfjsonpath.New("data_keys"), keys)},
				Check:             resource.ComposeTestCheckFunc(carried, workHasVerbs(h, "get", "list")),
			},
			{
				// Manifests change in place; the members' Works follow.
				Config: envelopeConfig(`[get, list, watch]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(quotaAddr, plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeTestCheckFunc(workHasVerbs(h, "get", "list", "watch"), carried),
			},
			{
				// Changed behind Terraform's back: refresh sees it, the plan writes the configuration back.
				PreConfig: func() {
					setData(t, "", envName, map[string]string{"manifest-000.yaml": placement.TestWebhookJSON, "by-hand.yaml": placement.TestRole})
					// The hub agent places the drifted envelope (testRole has no rules) before the plan.
					if err := workHasVerbs(envelopeHubClient(t))(nil); err != nil {
						t.Fatal(err)
					}
				},
				Config: envelopeConfig(`[get, list, watch]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(addr, tfjsonpath.New("data_keys"), keys)},
				Check:             workHasVerbs(h, "get", "list", "watch"),
			},
			{
				// A Secret put into the ResourceEnvelope by hand: neither the plan nor the state holds
				// its data; the plan takes it out.
				PreConfig: func() {
					env, err := h.Envelope(context.Background(), envNS, envQuotaName)
					if err != nil {
						t.Fatal(err)
					}
					data := envelope.Texts(env.GetData())
					data["by-hand.yaml"] = `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db","namespace":"` + envNS + `"},"data":{"password":"` + password + `"}}`
					setData(t, envNS, envQuotaName, data)
				},
				Config: envelopeConfig(`[get, list, watch]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(quotaAddr, plancheck.ResourceActionUpdate),
					noText(password),
				}},
				ConfigStateChecks: []statecheck.StateCheck{noText(password)},
				Check: resource.ComposeTestCheckFunc(saveState(saved), func(*terraform.State) error {
					env, err := h.Envelope(context.Background(), envNS, envQuotaName)
					if err != nil {
						return err
					}
					if _, ok := env.GetData()["by-hand.yaml"]; ok || len(env.GetData()) != 1 {
						return fmt.Errorf("the ResourceEnvelope's data after apply: %v", envelope.Texts(env.GetData()))
					}
					return nil
				}),
			},
			// The hub keeps the objects as JSON: an imported envelope's manifests are the same objects
			// in JSON.
			{ResourceName: addr, ImportState: true, ImportStateId: envName, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"manifests"},
				ImportStateCheck: sameManifests(saved, addr)},
			{ResourceName: quotaAddr, ImportState: true, ImportStateId: envNS + "/" + envQuotaName, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"manifests"},
				ImportStateCheck: sameManifests(saved, quotaAddr)},
			{
				// An envelope that exists, by plan: creating it again is refused at plan.
				Config: envelopeConfig(`[get, list, watch]`) + `
resource "fleet_envelope" "again" {
  name      = fleet_envelope.test.name
  manifests = fleet_envelope.test.manifests
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`ClusterResourceEnvelope already exists`),
			},
		},
	})
}

// sameManifests checks that an imported envelope's manifests hold the same objects as those of the
// state saved before (formatting aside).
func sameManifests(saved map[string]map[string]string, addr string) resource.ImportStateCheckFunc {
	return func(states []*terraform.InstanceState) error {
		if len(states) != 1 {
			return fmt.Errorf("%d states", len(states))
		}
		a, want := states[0].Attributes, saved[addr]
		if want == nil || a["manifests.#"] != want["manifests.#"] {
			return fmt.Errorf("imported manifests %v, want %v", a, want)
		}
		for i := 0; want[fmt.Sprintf("manifests.%d", i)] != ""; i++ {
			k := fmt.Sprintf("manifests.%d", i)
			docs, err := envelope.Split(want[k])
			if err != nil {
				return err
			}
			var texts []string
			for _, d := range docs {
				texts = append(texts, d.Text)
			}
			if !envelope.Equal(a[k], texts) {
				return fmt.Errorf("imported %s = %q, want the objects of %q", k, a[k], want[k])
			}
		}
		return nil
	}
}

// saveState keeps the resources' attributes for a later comparison.
func saveState(saved map[string]map[string]string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for addr, r := range s.RootModule().Resources {
			saved[addr] = r.Primary.Attributes
		}
		return nil
	}
}

// The documented path for a KubeFleet v0.14 ConfigMap envelope, which v0.18.9 places as a plain
// ConfigMap: imported as configmap/<namespace>/<name> (the state the schema upgrade writes, see
// TestEnvelopeStateUpgradeV0), the next apply writes a ClusterResourceEnvelope and deletes the
// ConfigMap; the members' Works then carry the ClusterRole, and no Work carries the ConfigMap.
func TestAccEnvelopeConfigMapMigration(t *testing.T) {
	const (
		ns   = "envelope-legacy"
		name = "legacy"
		addr = "fleet_envelope.legacy"
	)
	h := envelopeHubClient(t)
	role := "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: legacy-reader\nrules: []\n"
	config := acctest.ProviderConfig + fmt.Sprintf(`
resource "fleet_envelope" "legacy" {
  name      = %[2]q
  manifests = [%[3]q]
}

resource "fleet_placement" "legacy" {
  name = %[1]q
  resource_selector {
    version = "v1"
    kind = "Namespace"
    name = %[1]q
  }
  resource_selector {
    group = "placement.kubernetes-fleet.io"
    version = "v1beta1"
    kind = "ClusterResourceEnvelope"
    name = fleet_envelope.legacy.name
  }
  policy {
    placement_type = "PickFixed"
    cluster_names = ["canary-east"]
  }
  wait_for_rollout = true
}
`, ns, name, role)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					acctest.NewHubClients(t).CreateNamespace(t, ns)
					cm := &corev1.ConfigMap{
						ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: map[string]string{envelope.LegacyAnnotation: "true"}},
						Data:       map[string]string{"manifest-000.yaml": role},
					}
					if _, err := h.Kubernetes().CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config:             config,
				ResourceName:       addr,
				ImportState:        true,
				ImportStateId:      "configmap/" + ns + "/" + name,
				ImportStatePersist: true,
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if len(states) != 1 {
						return fmt.Errorf("%d states", len(states))
					}
					a := states[0].Attributes
					if a["replaces_configmap"] != ns+"/"+name || a["kind"] != "ClusterResourceEnvelope" || a["namespace"] != "" || a["manifests.0"] != role {
						return fmt.Errorf("imported %v", a)
					}
					return nil
				},
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("replaces_configmap"), knownvalue.Null()),
				}},
				Check: resource.ComposeTestCheckFunc(
					func(*terraform.State) error {
						if _, err := h.ConfigMapEnvelope(context.Background(), ns, name); !hub.IsNotFound(err) {
							return fmt.Errorf("the ConfigMap envelope after the migration: %v", err)
						}
						return nil
					},
					envelopeCarried(h, ns, "", name, []string{"canary-east"}, "ClusterRole"),
					func(*terraform.State) error {
						if _, err := h.Kubernetes().RbacV1().ClusterRoles().Get(context.Background(), "legacy-reader", metav1.GetOptions{}); !hub.IsNotFound(err) {
							return fmt.Errorf("ClusterRole legacy-reader on the hub: %v", err)
						}
						return nil
					},
				),
			},
		},
	})
}

// The registry example (examples/resources/fleet_envelope/resource.tf) validates and plans against
// the local fleet's hub: both envelope kinds pass the scope checks.
func TestAccEnvelopeExample(t *testing.T) {
	root, err := acctest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile(filepath.Join(root, "examples/resources/fleet_envelope/resource.tf"))
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig:          func() { acctest.NewHubClients(t).CreateNamespace(t, "web") },
			Config:             acctest.ProviderConfig + string(example),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}
