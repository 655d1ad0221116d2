package placement_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/envelope"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/placement"
)

const (
	envNS     = "envelope-web"
	envName   = "hub-safe"
	envMember = "canary-east"
)

// envelopeConfig places namespace envNS on canary-east with an envelope wrapping a webhook
// configuration (yamlencode) and, in one heredoc, a ClusterRole and a ClusterRoleBinding with the
// given verbs.
func envelopeConfig(verbs string) string {
	return acctest.ProviderConfig + fmt.Sprintf(`
resource "fleet_envelope" "test" {
  namespace = %[1]q
  name      = "hub-safe"
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

resource "fleet_placement" "test" {
  name               = %[1]q
  resource_selectors = [{ version = "v1", kind = "Namespace", name = %[1]q }]
  policy             = { placement_type = "PickFixed", cluster_names = ["canary-east"] }
  wait_for_rollout   = true
  depends_on         = [fleet_envelope.test]
}
`, envNS, verbs)
}

type envelopeHub struct{ *hub.Client }

func envelopeHubClient(t *testing.T) envelopeHub { return envelopeHub{hub.New(acctest.HubKube(t))} }

// setData overwrites the envelope's data (and its annotations when given) behind Terraform's back.
func (h envelopeHub) setData(t *testing.T, ns, name string, data map[string]string, annotations map[string]string) {
	t.Helper()
	ctx := context.Background()
	cm, err := h.Envelope(ctx, ns, name)
	if err != nil {
		t.Fatal(err)
	}
	cm.Data = data
	if annotations != nil {
		cm.Annotations = annotations
	}
	if _, err := h.Kubernetes().CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// envelopeCarried checks, once the hub agent has caught up, that the envelope ConfigMap is on the
// hub, that its Work for member holds exactly what KubeFleet's work generator makes of its data
// (wantKinds among them), that the placement's other Works do not carry the ConfigMap, and that
// none of the wrapped cluster-scoped objects exists on the hub.
func envelopeCarried(h envelopeHub, wantKinds ...string) resource.TestCheckFunc {
	ns, name, placement, member := envNS, envName, envNS, envMember
	return func(*terraform.State) error {
		ctx := context.Background()
		cm, err := h.Envelope(ctx, ns, name)
		if err != nil {
			return fmt.Errorf("envelope ConfigMap: %w", err)
		}
		if cm.Annotations[placementv1beta1.EnvelopeConfigMapAnnotation] != "true" {
			return fmt.Errorf("ConfigMap %s/%s annotations %v: not marked as an envelope", ns, name, cm.Annotations)
		}
		want, err := envelope.WorkManifests(cm.Data)
		if err != nil {
			return err
		}
		var last string
		err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			works, err := h.EnvelopeWorks(ctx, member, ns, name)
			if err != nil {
				return false, err
			}
			if len(works) != 1 {
				last = fmt.Sprintf("%d envelope Works", len(works))
				return false, nil
			}
			got := works[0].Spec.Workload.Manifests
			if len(got) != len(want) {
				last = fmt.Sprintf("Work %s has %d manifests, want %d", works[0].Name, len(got), len(want))
				return false, nil
			}
			for i := range got {
				if !sameJSONObject(got[i].Raw, want[i]) {
					last = fmt.Sprintf("Work %s manifest %d = %s, want %s", works[0].Name, i, got[i].Raw, want[i])
					return false, nil
				}
			}
			return true, nil
		})
		if err != nil {
			return fmt.Errorf("the envelope's Work for %s: %s: %w", member, last, err)
		}
		kinds := map[string]bool{}
		for _, m := range want {
			var o struct{ Kind string }
			_ = json.Unmarshal(m, &o)
			kinds[o.Kind] = true
		}
		for _, k := range wantKinds {
			if !kinds[k] {
				return fmt.Errorf("the envelope's Work carries no %s (kinds %v)", k, kinds)
			}
		}
		works, err := h.PlacementWorks(ctx, member, placement)
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
				if o.Kind == "ConfigMap" && o.Metadata.Name == name {
					return fmt.Errorf("Work %s places the envelope ConfigMap itself", w.Name)
				}
			}
		}
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
		return nil
	}
}

func sameJSONObject(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// workHasVerbs checks that the envelope's Work carries the ClusterRole with the verbs (none: no rules).
func workHasVerbs(h envelopeHub, verbs ...string) resource.TestCheckFunc {
	ns, name, member := envNS, envName, envMember
	return func(*terraform.State) error {
		var last string
		err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			works, err := h.EnvelopeWorks(ctx, member, ns, name)
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
			return fmt.Errorf("the envelope's Work: want ClusterRole verbs %v, %s: %w", verbs, last, err)
		}
		return nil
	}
}

// An envelope wrapping a webhook configuration, a ClusterRole and its binding: the hub holds the
// ConfigMap only, and the Work the hub agent generates for the member carries the objects; manifests
// update in place; formatting-only drift plans nothing, real drift and a lost annotation plan an
// update; the envelope imports by namespace/name; invalid manifests fail at validate.
func TestAccEnvelope(t *testing.T) {
	const (
		addr = "fleet_envelope.test"
		ns   = envNS
		name = envName
	)
	h := envelopeHubClient(t)
	keys := knownvalue.ListExact([]knownvalue.Check{
		knownvalue.StringExact("manifest-000.yaml"), knownvalue.StringExact("manifest-001-00.yaml"), knownvalue.StringExact("manifest-001-01.yaml"),
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if _, err := h.Envelope(context.Background(), ns, name); !hub.IsNotFound(err) {
				return fmt.Errorf("envelope ConfigMap after destroy: %v", err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: acctest.ProviderConfig + `
resource "fleet_envelope" "bad" {
  namespace = "envelope-web"
  name      = "bad"
  manifests = [yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = "x" } }), "apiVersion: v1\nmetadata: {name: y}\n"]
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid manifest.*kind: required`),
			},
			{
				PreConfig: func() { acctest.NewHubClients(t).CreateNamespace(t, ns) },
				Config:    envelopeConfig(`[get, list]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("data_keys"), keys),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(ns+"/"+name)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(addr, tfjsonpath.New("data_keys"), keys)},
				Check: resource.ComposeTestCheckFunc(
					envelopeCarried(h, "ValidatingWebhookConfiguration", "ClusterRole", "ClusterRoleBinding"),
					workHasVerbs(h, "get", "list"),
				),
			},
			{
				// Manifests change in place; the member's Work follows.
				Config: envelopeConfig(`[get, list, watch]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(
					workHasVerbs(h, "get", "list", "watch"),
					envelopeCarried(h, "ValidatingWebhookConfiguration", "ClusterRole", "ClusterRoleBinding"),
				),
			},
			{
				// The same objects written differently on the hub (JSON, other key order): no change.
				PreConfig: func() {
					cm, err := h.Envelope(context.Background(), ns, name)
					if err != nil {
						t.Fatal(err)
					}
					data := map[string]string{}
					for k, v := range cm.Data {
						j, err := envelope.WorkManifests(map[string]string{k: v})
						if err != nil {
							t.Fatal(err)
						}
						data[k] = string(j[0])
					}
					h.setData(t, ns, name, data, nil)
				},
				Config:   envelopeConfig(`[get, list, watch]`),
				PlanOnly: true,
			},
			{
				// Changed behind Terraform's back: refresh sees it, the plan writes the configuration back.
				PreConfig: func() {
					h.setData(t, ns, name, map[string]string{"manifest-000.yaml": placement.TestWebhook, "by-hand.yaml": placement.TestRole}, nil)
					// The hub agent places the drifted envelope (testRole has no rules) before the plan.
					if err := workHasVerbs(h)(nil); err != nil {
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
				// The envelope annotation removed by hand: KubeFleet would place the ConfigMap itself;
				// the plan restores it.
				PreConfig: func() {
					cm, err := h.Envelope(context.Background(), ns, name)
					if err != nil {
						t.Fatal(err)
					}
					h.setData(t, ns, name, cm.Data, map[string]string{"team": "web"})
				},
				Config: envelopeConfig(`[get, list, watch]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					cm, err := h.Envelope(context.Background(), ns, name)
					if err != nil {
						return err
					}
					if !hub.IsEnvelope(cm) || cm.Annotations["team"] != "web" {
						return fmt.Errorf("annotations after apply: %v", cm.Annotations)
					}
					return nil
				},
			},
			{
				ResourceName:      addr,
				ImportState:       true,
				ImportStateId:     ns + "/" + name,
				ImportStateVerify: true,
			},
			{
				// Import of a ConfigMap that exists, by plan: creating it again is refused at plan.
				Config: envelopeConfig(`[get, list, watch]`) + `
resource "fleet_envelope" "again" {
  namespace = fleet_envelope.test.namespace
  name      = fleet_envelope.test.name
  manifests = fleet_envelope.test.manifests
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`ConfigMap already exists`),
			},
		},
	})
}
